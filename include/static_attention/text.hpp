// SPDX-License-Identifier: BSL-1.0
// The text room's umbrella: GPT-2's tokenizer (text to ids and back, constexpr) and the
// streaming decoder that prints tokens as whole characters. Freestanding: no heap, no strings.
// Reading OpenAI's encoder.json and vocab.bpe at run time is in static_attention/io/tokenizer_files.hpp.
#pragma once

#include <static_attention/text/gpt2_tokenizer.hpp>
#include <static_attention/text/utf8_stream_decoder.hpp>
