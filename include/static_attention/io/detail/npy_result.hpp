// SPDX-License-Identifier: BSL-1.0
// npy_errc, npy_error and npy_result<T>: the names the .npy/.npz readers have always used for
// their failures, now those of the library's one result type (core/result.hpp), so that every
// loader (.npy, .npz, state dicts, safetensors) reports failure the same way.
#pragma once

#include <static_attention/core/result.hpp>
#include <static_attention/io/detail/error_stream.hpp>

namespace static_attention {

/// What went wrong reading a .npy file or an .npz archive: the library's errc (core/result.hpp).
using npy_errc = errc;

/// A failure of a .npy/.npz reader: `code` and a `message` naming the file, what was expected and
/// what was found.
using npy_error = error;

/// Either a fully loaded T or an npy_error, never both and never a partly filled T.
template <class T>
using npy_result = result<T>;

}  // namespace static_attention
