// int8 post-training quantization at compile time: calibrate(), quantize() and the quantized
// models they give, for a multi_head_attention (quantize_attention.hpp) and for the book's GPT
// (quantize_gpt.hpp). See docs/quantization.md for the scheme, its error tables and where it
// differs from TFLM / CMSIS-NN.
#pragma once

#include <static_attention/quantize_attention.hpp>
#include <static_attention/quantize_gpt.hpp>
