// SPDX-License-Identifier: BSL-1.0
// For the size figures of docs/embedded.md: the start-up code and the C library's exit path only.
int main() { return 0; }
