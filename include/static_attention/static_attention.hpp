// SPDX-License-Identifier: BSL-1.0
// static_attention: shape-typed, constexpr transformer attention. The umbrella header of core/
// and nn/: freestanding, no I/O (quant.hpp, io.hpp, text.hpp and verify.hpp are the other rooms).
#pragma once

#include <static_attention/core/broadcast.hpp>
#include <static_attention/core/elementwise.hpp>
#include <static_attention/core/masking.hpp>
#include <static_attention/core/math.hpp>
#include <static_attention/core/matmul.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/random.hpp>
#include <static_attention/core/rank.hpp>
#include <static_attention/core/reduce.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/core/shape.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/slicing.hpp>
#include <static_attention/core/softmax.hpp>
#include <static_attention/core/stack_limit.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/backward.hpp>
#include <static_attention/nn/causal_attention.hpp>
#include <static_attention/nn/dropout.hpp>
#include <static_attention/nn/embedding.hpp>
#include <static_attention/nn/feed_forward.hpp>
#include <static_attention/nn/gelu.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/kv_cache.hpp>
#include <static_attention/nn/layer_norm.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/loss.hpp>
#include <static_attention/nn/model.hpp>
#include <static_attention/nn/multi_head_attention.hpp>
#include <static_attention/nn/sampling.hpp>
#include <static_attention/nn/self_attention.hpp>
#include <static_attention/nn/simplified_attention.hpp>
#include <static_attention/nn/token_ids.hpp>
#include <static_attention/nn/torch_init.hpp>
#include <static_attention/nn/transformer_block.hpp>
