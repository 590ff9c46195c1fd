#include "trace/formats/binary/block_codec.h"

#include <cstring>

#include <fmt/format.h>
#include <zstd.h>

#include "trace/formats/binary/crc32c.h"

namespace rastro::trace::binary {
namespace {

void put_u32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint32_t get_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

std::string file_header() {
  std::string h(kFileHeaderSize, '\0');
  std::memcpy(h.data(), kMagic, sizeof kMagic);
  put_u32(h.data() + 8, kBinaryVersion);
  put_u32(h.data() + 12, 0);
  return h;
}

FileHeaderCheck check_file_header(std::string_view bytes, uint32_t* version) {
  size_t n = std::min(bytes.size(), sizeof kMagic);
  if (std::memcmp(bytes.data(), kMagic, n) != 0) return FileHeaderCheck::kBadMagic;
  if (bytes.size() < kFileHeaderSize) return FileHeaderCheck::kTooShort;
  uint32_t v = get_u32(reinterpret_cast<const uint8_t*>(bytes.data()) + 8);
  if (version) *version = v;
  if (v == 0 || v > kBinaryVersion) return FileHeaderCheck::kBadVersion;
  // No feature flags are defined yet: a set bit is a file from the future (or a damaged one).
  if (get_u32(reinterpret_cast<const uint8_t*>(bytes.data()) + 12) != 0)
    return FileHeaderCheck::kBadFlags;
  return FileHeaderCheck::kOk;
}

bool parse_block_header(const uint8_t* p, BlockHeader* h, std::string* why) {
  uint32_t want = get_u32(p + 20);
  uint32_t got = crc32c(p, 20);
  if (want != got) {
    *why = fmt::format("block header checksum mismatch (stored {:08x}, computed {:08x})", want, got);
    return false;
  }
  h->type = static_cast<BlockType>(p[0]);
  h->codec = static_cast<Codec>(p[1]);
  h->stored_size = get_u32(p + 4);
  h->raw_size = get_u32(p + 8);
  h->count = get_u32(p + 12);
  h->payload_crc = get_u32(p + 16);
  if (p[1] > static_cast<uint8_t>(Codec::kZstd)) {
    *why = fmt::format("unknown codec {}", p[1]);
    return false;
  }
  if (p[2] != 0 || p[3] != 0) {
    *why = "reserved block-header bytes are not zero";
    return false;
  }
  if (h->stored_size > kMaxBlockBytes || h->raw_size > kMaxBlockBytes) {
    *why = fmt::format("block size {} / {} exceeds the 1 GiB limit", h->stored_size, h->raw_size);
    return false;
  }
  if (h->codec == Codec::kRaw && h->stored_size != h->raw_size) {
    *why = "uncompressed block with stored size != raw size";
    return false;
  }
  return true;
}

BlockEncoder::BlockEncoder(int zstd_level) : cctx_(ZSTD_createCCtx()), level_(zstd_level) {}
BlockEncoder::~BlockEncoder() { ZSTD_freeCCtx(cctx_); }

void BlockEncoder::append_block(std::string& out, BlockType type, uint32_t count,
                                std::string_view raw, bool compress) {
  std::string_view stored = raw;
  Codec codec = Codec::kRaw;
  if (compress && raw.size() >= 64) {
    scratch_.resize(ZSTD_compressBound(raw.size()));
    size_t n = ZSTD_compressCCtx(cctx_, scratch_.data(), scratch_.size(), raw.data(), raw.size(),
                                 level_);
    if (!ZSTD_isError(n) && n < raw.size()) {
      stored = std::string_view(scratch_.data(), n);
      codec = Codec::kZstd;
    }
  }
  char h[kBlockHeaderSize];
  h[0] = static_cast<char>(type);
  h[1] = static_cast<char>(codec);
  h[2] = h[3] = 0;
  put_u32(h + 4, static_cast<uint32_t>(stored.size()));
  put_u32(h + 8, static_cast<uint32_t>(raw.size()));
  put_u32(h + 12, count);
  put_u32(h + 16, crc32c(stored.data(), stored.size()));
  put_u32(h + 20, crc32c(h, 20));
  out.append(h, sizeof h);
  out.append(stored);
}

BlockDecoder::BlockDecoder() : dctx_(ZSTD_createDCtx()) {}
BlockDecoder::~BlockDecoder() { ZSTD_freeDCtx(dctx_); }

bool BlockDecoder::decode(const BlockHeader& h, const uint8_t* stored, std::string_view* raw,
                          std::string* why) {
  uint32_t got = crc32c(stored, h.stored_size);
  if (got != h.payload_crc) {
    *why = fmt::format("payload checksum mismatch (stored {:08x}, computed {:08x})", h.payload_crc,
                       got);
    return false;
  }
  if (h.codec == Codec::kRaw) {
    *raw = std::string_view(reinterpret_cast<const char*>(stored), h.stored_size);
    return true;
  }
  // Grow only: resize() would zero-fill the whole buffer on every block.
  if (buffer_.size() < h.raw_size) buffer_.resize(h.raw_size);
  size_t n = ZSTD_decompressDCtx(dctx_, buffer_.data(), h.raw_size, stored, h.stored_size);
  if (ZSTD_isError(n)) {
    *why = fmt::format("zstd: {}", ZSTD_getErrorName(n));
    return false;
  }
  if (n != h.raw_size) {
    *why = fmt::format("decompressed {} bytes, block header says {}", n, h.raw_size);
    return false;
  }
  *raw = std::string_view(buffer_.data(), n);
  return true;
}

}  // namespace rastro::trace::binary
