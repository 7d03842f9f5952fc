// SPDX-License-Identifier: BSL-1.0
// The tutorial examples' shared main: `tutorial_x` prints every section under a heading,
// `tutorial_x <section>` prints that section alone (docs/tutorial.md quotes those outputs, and
// test docs.in_sync compares them with a run).
#pragma once

#include <cstddef>
#include <iostream>
#include <string_view>

struct tutorial_section {
  std::string_view name;
  void (*print)();
};

template <std::size_t N>
int run_sections(int argc, char** argv, const tutorial_section (&sections)[N]) {
  const std::string_view only = argc > 1 ? argv[1] : "";
  bool found = only.empty();
  for (const tutorial_section& s : sections) {
    if (only.empty()) {
      std::cout << "== " << s.name << '\n';
      s.print();
      std::cout << '\n';
    } else if (only == s.name) {
      s.print();
      found = true;
    }
  }
  if (!found) std::cerr << "no section '" << only << "'\n";
  return found ? 0 : 1;
}
