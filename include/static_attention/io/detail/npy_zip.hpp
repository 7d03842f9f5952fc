// SPDX-License-Identifier: BSL-1.0
// A reader for the ZIP archives np.savez writes: stored (uncompressed) entries, found through the
// central directory, in memory or in a regular file read piece by piece. Enough of PKWARE's
// APPNOTE to read .npz files, and a clear refusal of the rest (compression, encryption, multi-disk
// archives); ZIP64 end records and extra fields are read, for archives over 2 or 4 GiB.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <static_attention/io/detail/npy_file.hpp>
#include <static_attention/io/detail/npy_header.hpp>
#include <static_attention/io/detail/npy_result.hpp>

namespace static_attention::detail {

inline constexpr std::uint32_t zip_local_sig = 0x04034b50;
inline constexpr std::uint32_t zip_central_sig = 0x02014b50;
inline constexpr std::uint32_t zip_end_sig = 0x06054b50;
inline constexpr std::uint32_t zip64_locator_sig = 0x07064b50;
inline constexpr std::size_t zip_local_size = 30;
inline constexpr std::size_t zip_central_size = 46;
inline constexpr std::size_t zip_end_size = 22;

// CRC-32 (ISO-HDLC, the one ZIP uses), table computed at compile time.
inline constexpr std::array<std::uint32_t, 256> zip_crc_table = [] {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}();

inline std::uint32_t zip_crc32(std::span<const std::byte> data) noexcept {
  std::uint32_t c = 0xffffffffu;
  for (const std::byte b : data) c = zip_crc_table[(c ^ std::to_integer<std::uint32_t>(b)) & 0xffu] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

// Little-endian reads at an offset the caller has bounds-checked.
inline std::uint32_t zip_u16(std::span<const std::byte> b, std::size_t at) {
  return static_cast<std::uint32_t>(npy_read_le(b, at, 2));
}
inline std::uint32_t zip_u32(std::span<const std::byte> b, std::size_t at) {
  return static_cast<std::uint32_t>(npy_read_le(b, at, 4));
}
inline std::uint64_t zip_u64(std::span<const std::byte> b, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 8; i-- > 0;) v = (v << 8) | std::to_integer<std::uint64_t>(b[at + i]);
  return v;
}

// One central-directory record, sizes and offset widened by its ZIP64 extra field if present.
struct zip_central_entry {
  std::string name;
  std::uint32_t flags = 0;
  std::uint32_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t size = 0;
  std::uint64_t local_offset = 0;
};

// Replaces 0xffffffff sizes and offset with the values of the ZIP64 extra field (id 1), which
// holds, in this order, only those fields that are 0xffffffff in the record.
inline bool zip_apply_zip64(std::span<const std::byte> extra, zip_central_entry& e) {
  const bool need_size = e.size == 0xffffffffu;
  const bool need_csize = e.compressed_size == 0xffffffffu;
  const bool need_offset = e.local_offset == 0xffffffffu;
  if (!need_size && !need_csize && !need_offset) return true;
  for (std::size_t at = 0; at + 4 <= extra.size();) {
    const std::uint32_t id = zip_u16(extra, at);
    const std::size_t len = zip_u16(extra, at + 2);
    if (len > extra.size() - at - 4) return false;
    if (id == 1) {
      std::size_t p = at + 4;
      const std::size_t end = p + len;
      for (auto [need, field] : {std::pair{need_size, &e.size}, std::pair{need_csize, &e.compressed_size},
                                 std::pair{need_offset, &e.local_offset}}) {
        if (!need) continue;
        if (end - p < 8) return false;
        *field = zip_u64(extra, p);
        p += 8;
      }
      return true;
    }
    at += 4 + len;
  }
  return false;
}

// Where an entry's data lie in the archive, and their CRC-32.
struct zip_entry_location {
  std::uint64_t data_at = 0;
  std::uint64_t size = 0;
  std::uint32_t crc = 0;
};

// An archive held in memory.
class zip_memory_source {
 public:
  explicit zip_memory_source(std::span<const std::byte> bytes) noexcept : bytes_(bytes) {}
  std::uint64_t size() const noexcept { return bytes_.size(); }
  // The `len` bytes at `at`, which the caller has checked lie inside the archive.
  npy_result<std::span<const std::byte>> read(std::uint64_t at, std::size_t len, const npy_context&) const {
    return bytes_.subspan(static_cast<std::size_t>(at), len);
  }

 private:
  std::span<const std::byte> bytes_;
};

// An archive in a regular file, read piece by piece: each read replaces the previous one, so
// memory holds one piece at a time (at most 64 KiB of end record and comment, one central
// directory record, or one entry's data).
class zip_file_source {
 public:
  zip_file_source(npy_input& in, std::uint64_t size) noexcept : in_(&in), size_(size) {}
  std::uint64_t size() const noexcept { return size_; }
  npy_result<std::span<const std::byte>> read(std::uint64_t at, std::size_t len, const npy_context& ctx) {
    if (auto e = in_->read_at(at, len, buffer_, ctx)) return std::move(*e);
    return std::span<const std::byte>{buffer_.data(), buffer_.size()};
  }

 private:
  npy_input* in_;
  std::uint64_t size_;
  std::vector<std::byte> buffer_;
};

// The end-of-central-directory record, widened by the ZIP64 end record when there is one: where
// the central directory lies and how many records it holds.
struct zip_end_info {
  std::uint64_t end_at = 0;    // offset of the (classic) end record
  std::uint64_t cd_limit = 0;  // the central directory must end here: the ZIP64 end record, or end_at
  std::uint64_t entries = 0;
  std::uint64_t cd_size = 0;
  std::uint64_t cd_offset = 0;
};

inline constexpr std::uint32_t zip64_end_sig = 0x06064b50;
inline constexpr std::size_t zip64_locator_size = 20;
inline constexpr std::size_t zip64_end_size = 56;

// Why an input without an end record is no .npz archive, from its first bytes.
template <class Source>
npy_error zip_no_end_record(Source& zip, const npy_context& ctx) {
  const std::uint64_t n = zip.size();
  auto head = zip.read(0, static_cast<std::size_t>(n < 8 ? n : 8), ctx);
  if (!head) return head.error();
  const std::span<const std::byte> h = head.value();
  if (h.size() >= std::size(npy_magic) && std::to_integer<unsigned>(h[0]) == npy_magic[0] &&
      std::to_integer<unsigned>(h[1]) == 'N')
    return npy_fail(npy_errc::zip_malformed, ctx, "found a .npy file, not an .npz archive; use load_npy");
  if (h.size() >= 4 && zip_u32(h, 0) == zip_local_sig)
    return npy_fail(npy_errc::zip_truncated, ctx,
                    "found the start of a ZIP archive but no end-of-central-directory record; the archive is "
                    "truncated (" +
                        std::to_string(n) + " bytes)");
  return npy_fail(npy_errc::zip_malformed, ctx,
                  "found bytes " + npy_leading_bytes(h) +
                      " and no end-of-central-directory record; not a ZIP "
                      "archive (.npz)");
}

// The end record is the last 22 bytes plus a comment of up to 65535 bytes: scans back for a
// signature whose comment length reaches exactly the end of the input. Its offset, or the size
// of the input if there is none.
template <class Source>
npy_result<std::uint64_t> zip_find_end_record(Source& zip, std::array<std::byte, zip_end_size>& record,
                                              const npy_context& ctx) {
  const std::uint64_t n = zip.size();
  if (n < zip_end_size) return n;
  const std::uint64_t tail_len = n < zip_end_size + 0xffff ? n : zip_end_size + 0xffff;
  const std::uint64_t tail_at = n - tail_len;
  auto tail = zip.read(tail_at, static_cast<std::size_t>(tail_len), ctx);
  if (!tail) return tail.error();
  const std::span<const std::byte> t = tail.value();
  for (std::size_t back = 0; back <= 0xffff && back <= tail_len - zip_end_size; ++back) {
    const std::size_t at = static_cast<std::size_t>(tail_len) - zip_end_size - back;
    if (zip_u32(t, at) == zip_end_sig && zip_u16(t, at + 20) == back) {
      for (std::size_t i = 0; i < zip_end_size; ++i) record[i] = t[at + i];
      return tail_at + at;
    }
  }
  return n;
}

// A field of the classic end record that is all ones defers to the ZIP64 end record; any other
// value must agree with it.
inline bool zip64_widen(std::uint64_t& field, std::uint64_t all_ones, std::uint64_t wide) {
  if (field == all_ones) {
    field = wide;
    return true;
  }
  return field == wide;
}

// Reads the ZIP64 end-of-central-directory locator and record that precede the end record, if
// there are any (archives over 4 GiB, of over 65535 entries, or whose writer chose ZIP64: Python
// writes them once the central directory starts past 2 GiB).
template <class Source>
std::optional<npy_error> zip_read_zip64_end(Source& zip, zip_end_info& info, const npy_context& ctx) {
  if (info.end_at < zip64_locator_size) return std::nullopt;
  auto locator = zip.read(info.end_at - zip64_locator_size, zip64_locator_size, ctx);
  if (!locator) return locator.error();
  const std::span<const std::byte> l = locator.value();
  if (zip_u32(l, 0) != zip64_locator_sig) return std::nullopt;
  if (zip_u32(l, 4) != 0 || zip_u32(l, 16) > 1)
    return npy_fail(npy_errc::zip_unsupported, ctx, "found a multi-disk (split) ZIP64 archive");
  const std::uint64_t at = zip_u64(l, 8);
  if (at > info.end_at - zip64_locator_size || info.end_at - zip64_locator_size - at < zip64_end_size)
    return npy_fail(npy_errc::zip_malformed, ctx,
                    "the ZIP64 end record's offset " + std::to_string(at) + " does not lie before its locator");
  auto record = zip.read(at, zip64_end_size, ctx);
  if (!record) return record.error();
  const std::span<const std::byte> r = record.value();
  if (zip_u32(r, 0) != zip64_end_sig)
    return npy_fail(npy_errc::zip_malformed, ctx,
                    "found no ZIP64 end record at offset " + std::to_string(at) + ", where its locator points");
  if (zip_u32(r, 16) != 0 || zip_u32(r, 20) != 0 || zip_u64(r, 24) != zip_u64(r, 32))
    return npy_fail(npy_errc::zip_unsupported, ctx, "found a multi-disk (split) ZIP64 archive");
  if (!zip64_widen(info.entries, 0xffff, zip_u64(r, 32)) || !zip64_widen(info.cd_size, 0xffffffffu, zip_u64(r, 40)) ||
      !zip64_widen(info.cd_offset, 0xffffffffu, zip_u64(r, 48)))
    return npy_fail(npy_errc::zip_malformed, ctx, "the end record and the ZIP64 end record disagree");
  info.cd_limit = at;
  return std::nullopt;
}

// The archive's end records: where its central directory lies.
template <class Source>
npy_result<zip_end_info> zip_read_end(Source& zip, const npy_context& ctx) {
  std::array<std::byte, zip_end_size> record{};
  const auto found = zip_find_end_record(zip, record, ctx);
  if (!found) return found.error();
  if (found.value() == zip.size()) return zip_no_end_record(zip, ctx);
  const std::span<const std::byte> end{record};
  zip_end_info info{found.value(), found.value(), zip_u16(end, 10), zip_u32(end, 12), zip_u32(end, 16)};
  if (zip_u16(end, 4) != 0 || zip_u16(end, 6) != 0 || zip_u16(end, 8) != zip_u16(end, 10))
    return npy_fail(npy_errc::zip_unsupported, ctx, "found a multi-disk (split) ZIP archive");
  if (auto e = zip_read_zip64_end(zip, info, ctx)) return std::move(*e);
  if (info.cd_limit == info.end_at && (info.cd_size == 0xffffffffu || info.cd_offset == 0xffffffffu))
    return npy_fail(npy_errc::zip_malformed, ctx,
                    "the end record defers to a ZIP64 end record (size or offset 0xffffffff) and there is none");
  if (info.cd_offset > info.cd_limit || info.cd_size > info.cd_limit - info.cd_offset)
    return npy_fail(npy_errc::zip_truncated, ctx,
                    "the central directory (offset " + std::to_string(info.cd_offset) + ", " +
                        std::to_string(info.cd_size) + " bytes) extends past the end record at offset " +
                        std::to_string(info.cd_limit));
  return info;
}

// The central-directory record `i` (of `count`) at `at`, which must end by `cd_end`; `record_len` receives its length.
template <class Source>
npy_result<zip_central_entry> zip_read_central(Source& zip, std::uint64_t at, std::uint64_t cd_end, std::uint64_t i,
                                               std::uint64_t count, std::uint64_t& record_len, const npy_context& ctx) {
  const auto damaged = [&] {
    return npy_fail(npy_errc::zip_malformed, ctx,
                    "central directory record " + std::to_string(i) + " of " + std::to_string(count) +
                        " is missing or damaged (offset " + std::to_string(at) + ")");
  };
  if (cd_end - at < zip_central_size) return damaged();
  auto fixed = zip.read(at, zip_central_size, ctx);
  if (!fixed) return fixed.error();
  const std::span<const std::byte> r = fixed.value();
  if (zip_u32(r, 0) != zip_central_sig) return damaged();
  zip_central_entry e;
  e.flags = zip_u16(r, 8);
  e.method = zip_u16(r, 10);
  e.crc = zip_u32(r, 16);
  e.compressed_size = zip_u32(r, 20);
  e.size = zip_u32(r, 24);
  const std::size_t name_len = zip_u16(r, 28), extra_len = zip_u16(r, 30), comment_len = zip_u16(r, 32);
  e.local_offset = zip_u32(r, 42);
  record_len = zip_central_size + name_len + extra_len + comment_len;
  if (cd_end - at < record_len)
    return npy_fail(npy_errc::zip_malformed, ctx,
                    "central directory record " + std::to_string(i) + " extends past the central directory");
  auto variable = zip.read(at + zip_central_size, name_len + extra_len, ctx);
  if (!variable) return variable.error();
  const std::span<const std::byte> v = variable.value();
  e.name.assign(reinterpret_cast<const char*>(v.data()), name_len);
  if (!zip_apply_zip64(v.subspan(name_len, extra_len), e))
    return npy_fail(npy_errc::zip_malformed, ctx,
                    "the ZIP64 extra field of entry '" + e.name + "' is missing or damaged");
  return e;
}

// Calls `visit(zip_central_entry&&)` for every central-directory record, in order, until it
// returns an error; reads one record at a time.
template <class Source, class Visit>
std::optional<npy_error> zip_for_each_central(Source& zip, const zip_end_info& info, const npy_context& ctx,
                                              Visit&& visit) {
  std::uint64_t at = info.cd_offset;
  const std::uint64_t cd_end = info.cd_offset + info.cd_size;
  for (std::uint64_t i = 0; i < info.entries; ++i) {
    std::uint64_t record_len = 0;
    auto e = zip_read_central(zip, at, cd_end, i, info.entries, record_len, ctx);
    if (!e) return e.error();
    if (auto failure = visit(std::move(e).value())) return failure;
    at += record_len;
  }
  return std::nullopt;
}

// The names of every entry of an archive, in central-directory order.
template <class Source>
npy_result<std::vector<std::string>> zip_entry_names(Source& zip, const npy_context& ctx) {
  const auto info = zip_read_end(zip, ctx);
  if (!info) return info.error();
  std::vector<std::string> names;
  if (auto e = zip_for_each_central(zip, info.value(), ctx, [&](zip_central_entry&& entry) -> std::optional<npy_error> {
        names.push_back(std::move(entry.name));
        return std::nullopt;
      }))
    return std::move(*e);
  return names;
}

// The stored entry `found`'s data, checked against its local header (which repeats the name and
// has its own extra field, ZIP64 sizes included; the data follow it).
template <class Source>
npy_result<zip_entry_location> zip_locate_data(Source& zip, const zip_central_entry& found, const npy_context& ctx) {
  const std::string quoted = "entry '" + found.name + "'";
  if (found.flags & 1u) return npy_fail(npy_errc::zip_unsupported, ctx, quoted + " is encrypted");
  if (found.method != 0)
    return npy_fail(npy_errc::zip_compressed, ctx,
                    "compressed .npz entries are not supported; use np.savez (" + quoted + " uses ZIP method " +
                        std::to_string(found.method) +
                        (found.method == 8 ? ", deflate, as np.savez_compressed writes)" : ")"));
  if (found.compressed_size != found.size)
    return npy_fail(npy_errc::zip_malformed, ctx,
                    quoted + " is stored but its compressed and uncompressed sizes differ");
  const std::uint64_t n = zip.size(), local = found.local_offset;
  if (local > n || n - local < zip_local_size)
    return npy_fail(npy_errc::zip_truncated, ctx,
                    "the local header of " + quoted + " lies past the end of the archive");
  auto local_header = zip.read(local, zip_local_size, ctx);
  if (!local_header) return local_header.error();
  const std::span<const std::byte> l = local_header.value();
  if (zip_u32(l, 0) != zip_local_sig)
    return npy_fail(npy_errc::zip_malformed, ctx, "found no local header signature for " + quoted);
  const std::size_t local_name_len = zip_u16(l, 26), local_extra_len = zip_u16(l, 28);
  const std::uint64_t data_at = local + zip_local_size + local_name_len + local_extra_len;
  if (data_at > n || n - data_at < found.size)
    return npy_fail(
        npy_errc::zip_truncated, ctx,
        "the " + std::to_string(found.size) + " data bytes of " + quoted + " extend past the end of the archive");
  auto local_name = zip.read(local + zip_local_size, local_name_len, ctx);
  if (!local_name) return local_name.error();
  if (std::string_view{reinterpret_cast<const char*>(local_name.value().data()), local_name_len} != found.name)
    return npy_fail(npy_errc::zip_malformed, ctx, "the local header of " + quoted + " names a different entry");
  return zip_entry_location{data_at, found.size, found.crc};
}

// True if an entry named `name` is what np.savez writes for `key`: `key` or `key` + ".npy"
// (np.savez adds the suffix; np.load accepts both).
inline bool zip_name_matches(std::string_view name, std::string_view key) {
  return name == key ||
         (name.size() == key.size() + 4 && name.substr(0, key.size()) == key && name.substr(key.size()) == ".npy");
}

// Finds the entry named `key` or `key` + ".npy" and returns where its data lie, after checking
// them against the central directory. Reads only the end records (with the archive comment), the
// central directory one record at a time, and the entry's local header. `entry_name` receives
// the entry's full name, for messages about its contents.
template <class Source>
npy_result<zip_entry_location> find_zip_entry(Source& zip, std::string_view key, const npy_context& ctx,
                                              std::string& entry_name) {
  const auto info = zip_read_end(zip, ctx);
  if (!info) return info.error();
  std::string names;  // for the message when the entry is missing
  std::optional<zip_central_entry> found;
  auto scan = zip_for_each_central(zip, info.value(), ctx, [&](zip_central_entry&& e) -> std::optional<npy_error> {
    const bool match = zip_name_matches(e.name, key);
    if (match && found)
      return npy_fail(npy_errc::zip_malformed, ctx, "found two entries for '" + std::string{key} + "'");
    if (names.size() < 200) names += (names.empty() ? "'" : ", '") + e.name + "'";
    if (match) found = std::move(e);
    return std::nullopt;
  });
  if (scan) return std::move(*scan);
  if (!found)
    return npy_fail(npy_errc::zip_entry_not_found, ctx,
                    "found no entry '" + std::string{key} + "' or '" + std::string{key} + ".npy'; the archive holds " +
                        (names.empty() ? std::string{"no entries"} : names));
  entry_name = found->name;
  return zip_locate_data(zip, *found, ctx);
}

// The data of an entry that find_zip_entry located: all of them, checked against their CRC-32;
// or, when the entry is longer than `max_bytes` (more than any input the caller accepts), only its
// first max_bytes + 1 bytes, unchecked, so that a huge entry is never read whole. `cut` says which.
template <class Source>
npy_result<std::span<const std::byte>> read_zip_entry(Source& zip, const zip_entry_location& entry,
                                                      const std::string& entry_name, std::size_t max_bytes, bool& cut,
                                                      const npy_context& ctx) {
  cut = entry.size > max_bytes;
  const std::size_t len = cut ? max_bytes + 1 : static_cast<std::size_t>(entry.size);
  auto data = zip.read(entry.data_at, len, ctx);
  if (!data) return data.error();
  if (!cut && zip_crc32(data.value()) != entry.crc)
    return npy_fail(npy_errc::zip_crc_mismatch, ctx,
                    "the data of entry '" + entry_name + "' do not match their CRC-32; the archive is damaged");
  return data;
}

}  // namespace static_attention::detail
