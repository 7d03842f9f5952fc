// A reader for the ZIP archives np.savez writes: stored (uncompressed) entries, found through the
// central directory. Enough of PKWARE's APPNOTE to read .npz files, and a clear refusal of the rest
// (compression, encryption, ZIP64 end records, multi-disk archives).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <static_attention/detail/npy_header.hpp>
#include <static_attention/detail/npy_result.hpp>

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
  std::string_view name;
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

// Finds the entry named `key` or `key` + ".npy" (np.savez adds the suffix; np.load accepts both)
// and returns its data, after checking them against the central directory and their CRC-32.
// `entry_name` receives the entry's full name, for messages about its contents.
inline npy_result<std::span<const std::byte>> find_zip_entry(std::span<const std::byte> zip, std::string_view key,
                                                             const npy_context& ctx, std::string& entry_name) {
  const std::size_t n = zip.size();
  // The end record is the last 22 bytes plus a comment of up to 65535 bytes; scan back for a
  // signature whose comment length reaches exactly the end of the input.
  std::size_t end_at = n;
  for (std::size_t back = 0; n >= zip_end_size && back <= 0xffff && back <= n - zip_end_size; ++back) {
    const std::size_t at = n - zip_end_size - back;
    if (zip_u32(zip, at) == zip_end_sig && zip_u16(zip, at + 20) == back) {
      end_at = at;
      break;
    }
  }
  if (end_at == n) {
    if (n >= std::size(npy_magic) && std::to_integer<unsigned>(zip[0]) == npy_magic[0] &&
        std::to_integer<unsigned>(zip[1]) == 'N')
      return npy_fail(npy_errc::zip_malformed, ctx, "found a .npy file, not an .npz archive; use load_npy");
    if (n >= 4 && zip_u32(zip, 0) == zip_local_sig)
      return npy_fail(npy_errc::zip_truncated, ctx,
                      "found the start of a ZIP archive but no end-of-central-directory record; the archive is "
                      "truncated (" +
                          std::to_string(n) + " bytes)");
    return npy_fail(npy_errc::zip_malformed, ctx,
                    "found bytes " + npy_leading_bytes(zip) +
                        " and no end-of-central-directory record; not a ZIP "
                        "archive (.npz)");
  }
  const std::uint32_t disk = zip_u16(zip, end_at + 4), cd_disk = zip_u16(zip, end_at + 6);
  const std::uint32_t disk_entries = zip_u16(zip, end_at + 8), entries = zip_u16(zip, end_at + 10);
  const std::uint64_t cd_size = zip_u32(zip, end_at + 12), cd_offset = zip_u32(zip, end_at + 16);
  if (entries == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu ||
      (end_at >= 20 && zip_u32(zip, end_at - 20) == zip64_locator_sig))
    return npy_fail(npy_errc::zip_unsupported, ctx,
                    "found a ZIP64 end record (archives over 4 GiB or 65535 entries are not supported)");
  if (disk != 0 || cd_disk != 0 || disk_entries != entries)
    return npy_fail(npy_errc::zip_unsupported, ctx, "found a multi-disk (split) ZIP archive");
  if (cd_offset > end_at || cd_size > end_at - cd_offset)
    return npy_fail(npy_errc::zip_truncated, ctx,
                    "the central directory (offset " + std::to_string(cd_offset) + ", " + std::to_string(cd_size) +
                        " bytes) extends past the end record at offset " + std::to_string(end_at));

  std::string names;  // for the message when the entry is missing
  zip_central_entry found;
  bool have = false;
  std::size_t at = static_cast<std::size_t>(cd_offset);
  const std::size_t cd_end = static_cast<std::size_t>(cd_offset + cd_size);
  for (std::uint32_t i = 0; i < entries; ++i) {
    if (cd_end - at < zip_central_size || zip_u32(zip, at) != zip_central_sig)
      return npy_fail(npy_errc::zip_malformed, ctx,
                      "central directory record " + std::to_string(i) + " of " + std::to_string(entries) +
                          " is missing or damaged (offset " + std::to_string(at) + ")");
    zip_central_entry e;
    e.flags = zip_u16(zip, at + 8);
    e.method = zip_u16(zip, at + 10);
    e.crc = zip_u32(zip, at + 16);
    e.compressed_size = zip_u32(zip, at + 20);
    e.size = zip_u32(zip, at + 24);
    const std::size_t name_len = zip_u16(zip, at + 28), extra_len = zip_u16(zip, at + 30),
                      comment_len = zip_u16(zip, at + 32);
    e.local_offset = zip_u32(zip, at + 42);
    const std::size_t record_len = zip_central_size + name_len + extra_len + comment_len;
    if (cd_end - at < record_len)
      return npy_fail(npy_errc::zip_malformed, ctx,
                      "central directory record " + std::to_string(i) + " extends past the central directory");
    e.name = std::string_view{reinterpret_cast<const char*>(zip.data() + at + zip_central_size), name_len};
    if (!zip_apply_zip64(zip.subspan(at + zip_central_size + name_len, extra_len), e))
      return npy_fail(npy_errc::zip_malformed, ctx,
                      "the ZIP64 extra field of entry '" + std::string{e.name} + "' is missing or damaged");
    const bool match = e.name == key || (e.name.size() == key.size() + 4 && e.name.substr(0, key.size()) == key &&
                                         e.name.substr(key.size()) == ".npy");
    if (match && have)
      return npy_fail(npy_errc::zip_malformed, ctx, "found two entries for '" + std::string{key} + "'");
    if (match) {
      found = e;
      have = true;
    }
    if (names.size() < 200) names += (names.empty() ? "'" : ", '") + std::string{e.name} + "'";
    at += record_len;
  }
  if (!have)
    return npy_fail(npy_errc::zip_entry_not_found, ctx,
                    "found no entry '" + std::string{key} + "' or '" + std::string{key} + ".npy'; the archive holds " +
                        (names.empty() ? std::string{"no entries"} : names));

  entry_name.assign(found.name);
  const std::string quoted = "entry '" + entry_name + "'";
  if (found.flags & 1u) return npy_fail(npy_errc::zip_unsupported, ctx, quoted + " is encrypted");
  if (found.method != 0)
    return npy_fail(npy_errc::zip_compressed, ctx,
                    "compressed .npz entries are not supported; use np.savez (" + quoted + " uses ZIP method " +
                        std::to_string(found.method) +
                        (found.method == 8 ? ", deflate, as np.savez_compressed writes)" : ")"));
  if (found.compressed_size != found.size)
    return npy_fail(npy_errc::zip_malformed, ctx,
                    quoted + " is stored but its compressed and uncompressed sizes differ");
  // The local header repeats the name and has its own extra field; the data follow it.
  const std::uint64_t local = found.local_offset;
  if (local > n || n - local < zip_local_size)
    return npy_fail(npy_errc::zip_truncated, ctx,
                    "the local header of " + quoted + " lies past the end of the archive");
  const auto lat = static_cast<std::size_t>(local);
  if (zip_u32(zip, lat) != zip_local_sig)
    return npy_fail(npy_errc::zip_malformed, ctx, "found no local header signature for " + quoted);
  const std::size_t local_name_len = zip_u16(zip, lat + 26), local_extra_len = zip_u16(zip, lat + 28);
  const std::uint64_t data_at = local + zip_local_size + local_name_len + local_extra_len;
  if (data_at > n || n - data_at < found.size)
    return npy_fail(
        npy_errc::zip_truncated, ctx,
        "the " + std::to_string(found.size) + " data bytes of " + quoted + " extend past the end of the archive");
  if (std::string_view{reinterpret_cast<const char*>(zip.data() + lat + zip_local_size), local_name_len} != found.name)
    return npy_fail(npy_errc::zip_malformed, ctx, "the local header of " + quoted + " names a different entry");
  const auto data = zip.subspan(static_cast<std::size_t>(data_at), static_cast<std::size_t>(found.size));
  if (zip_crc32(data) != found.crc)
    return npy_fail(npy_errc::zip_crc_mismatch, ctx,
                    "the data of " + quoted + " do not match their CRC-32; the archive is damaged");
  return data;
}

}  // namespace static_attention::detail
