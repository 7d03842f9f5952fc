// SPDX-License-Identifier: BSL-1.0
// load_options: how the model loaders (load_state_dict, load_safetensors) treat a file's tensors.
#pragma once

namespace static_attention {

/// Options of load_state_dict and load_safetensors: `load_safetensors(model, path, {.strict = false})`.
struct load_options {
  /// True (the default): a tensor of the file that the model does not have is refused with
  /// errc::unexpected_tensor naming it, as torch's `load_state_dict(strict=True)` does; false:
  /// such tensors are ignored. Missing tensors are refused either way.
  bool strict = true;
};

}  // namespace static_attention
