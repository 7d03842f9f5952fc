// SPDX-License-Identifier: BSL-1.0
// The I/O room's umbrella: printing as PyTorch prints, heatmaps, .npy/.npz, state dicts and
// the GPT-2 tokenizer's files.
// Hosted only ({fmt}'s formatter has its own header, static_attention/io/fmt.hpp).
#pragma once

#include <static_attention/io/heatmap.hpp>
#include <static_attention/io/module_print.hpp>
#include <static_attention/io/npy.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/io/safetensors.hpp>
#include <static_attention/io/state_dict.hpp>
#include <static_attention/io/tokenizer_files.hpp>
