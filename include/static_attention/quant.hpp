// SPDX-License-Identifier: BSL-1.0
// int8 post-training quantization at compile time: calibrate(), quantize() and the quantized
// models they give, for a multi_head_attention (quantize_attention.hpp) and for the book's GPT
// (quantize_gpt.hpp), the int8 KV cache (quantized_kv_cache.hpp) and the memory plans
// (footprint.hpp). See docs/quantization.md for the scheme, its error tables and where it differs
// from TFLM / CMSIS-NN.
#pragma once

#include <static_attention/quant/footprint.hpp>
#include <static_attention/quant/quantize_attention.hpp>
#include <static_attention/quant/quantize_gpt.hpp>
#include <static_attention/quant/quantized_kv_cache.hpp>
