// SPDX-License-Identifier: BSL-1.0
// Run-time truth: a torch.save file, in the ZIP format (with data.pkl) or the legacy pickle, is
// recognised by both loaders and refused with errc::torch_pickle, pointing to the export scripts;
// an .npz given to load_safetensors, or a safetensors file to load_state_dict, is refused with
// bad_magic and a pointer to the other loader.
#include <string>

#include <doctest/doctest.h>

#include <static_attention/io/safetensors.hpp>
#include <static_attention/io/state_dict.hpp>

#include "safetensors_test_support.hpp"

namespace sa = static_attention;
using sa::errc;

TEST_CASE("torch.save files: both loaders say what they are and what to do") {
  for (const std::string name : {"torch_zip.pt", "torch_legacy.pt"}) {
    INFO(name);
    const auto bytes = st_test::read_bytes(st_test::fixture(name));
    st_test::check_refused(bytes, errc::torch_pickle, "", "tools/export_state_dict.py");
    auto model = st_test::torch_model<float, st_test::tiny>(7);
    const auto before = st_test::bytes_of(*model);
    const auto r = sa::load_state_dict(*model, st_test::fixture(name));
    REQUIRE_FALSE(r);
    INFO(r.error().message);
    CHECK(r.error().code == errc::torch_pickle);
    CHECK(st_test::contains(r.error().message, "tools/export_state_dict.py"));
    CHECK(st_test::contains(r.error().message, name));
    CHECK(st_test::bytes_of(*model) == before);
  }
}

TEST_CASE("a safetensors file given to load_state_dict") {
  auto model = st_test::torch_model<float, st_test::tiny>(7);
  const auto r = sa::load_state_dict(*model, st_test::fixture("book_f32.safetensors"));
  REQUIRE_FALSE(r);
  CHECK(r.error().code == errc::bad_magic);
  CHECK(st_test::contains(r.error().message, "load_safetensors"));
}

TEST_CASE("an .npz archive given to load_safetensors") {
  const auto bytes = st_test::read_bytes(st_test::fixture("../../gpt/fixtures/tiny_state_dict.npz"));
  REQUIRE(bytes.size() > 1000);
  st_test::check_refused(bytes, errc::bad_magic, "", "load_state_dict");
}
