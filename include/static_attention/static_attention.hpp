// static_attention: shape-typed, constexpr transformer attention. The umbrella header; it
// includes every core header (no I/O: printing and file loading have headers of their own).
#pragma once

#include <static_attention/causal_attention.hpp>
#include <static_attention/dropout.hpp>
#include <static_attention/elementwise.hpp>
#include <static_attention/embedding.hpp>
#include <static_attention/feed_forward.hpp>
#include <static_attention/gelu.hpp>
#include <static_attention/gpt.hpp>
#include <static_attention/layer_norm.hpp>
#include <static_attention/masking.hpp>
#include <static_attention/math.hpp>
#include <static_attention/matmul.hpp>
#include <static_attention/matrix.hpp>
#include <static_attention/multi_head_attention.hpp>
#include <static_attention/quantize.hpp>
#include <static_attention/self_attention.hpp>
#include <static_attention/shape.hpp>
#include <static_attention/shape_rules.hpp>
#include <static_attention/simplified_attention.hpp>
#include <static_attention/slicing.hpp>
#include <static_attention/softmax.hpp>
#include <static_attention/tensor.hpp>
#include <static_attention/torch_init.hpp>
#include <static_attention/transformer_block.hpp>
