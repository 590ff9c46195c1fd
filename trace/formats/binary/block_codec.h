// The container layer of the binary format (docs/format.md): the 16-byte file header and
// self-delimiting, checksummed, optionally zstd-compressed blocks. Knows nothing of events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace rastro::trace::binary {

// "\x89RASTRO\n": the high byte catches 7-bit transfers, the newline catches text-mode mangling.
inline constexpr char kMagic[8] = {'\x89', 'R', 'A', 'S', 'T', 'R', 'O', '\n'};
inline constexpr uint32_t kBinaryVersion = 1;  // of the container + event encoding
inline constexpr size_t kFileHeaderSize = 16;  // magic, u32 version, u32 reserved flags
inline constexpr size_t kBlockHeaderSize = 24;
inline constexpr uint32_t kMaxBlockBytes = 1u << 30;  // sanity bound on stored and raw sizes

// Stored in files: append only.
enum class BlockType : uint8_t { kHeader = 1, kStrings = 2, kEvents = 3, kTrailer = 4 };
enum class Codec : uint8_t { kRaw = 0, kZstd = 1 };

struct BlockHeader {
  BlockType type = BlockType::kHeader;
  Codec codec = Codec::kRaw;
  uint32_t stored_size = 0;  // payload bytes following the block header
  uint32_t raw_size = 0;     // payload bytes after decompression
  uint32_t count = 0;        // events / strings in the block; trailer: events in the file
  uint32_t payload_crc = 0;  // CRC-32C of the stored payload
};

std::string file_header();

enum class FileHeaderCheck { kOk, kTooShort, kBadMagic, kBadVersion, kBadFlags };
// `version` receives the stored version when the magic matches.
FileHeaderCheck check_file_header(std::string_view bytes, uint32_t* version);

// Parses the 24 header bytes at `p`; false (with `why`) when its own checksum or fields are bad.
bool parse_block_header(const uint8_t* p, BlockHeader* h, std::string* why);

// Compresses blocks, reusing one zstd context.
class BlockEncoder {
 public:
  explicit BlockEncoder(int zstd_level = 3);
  ~BlockEncoder();
  BlockEncoder(const BlockEncoder&) = delete;
  BlockEncoder& operator=(const BlockEncoder&) = delete;
  // Appends header + payload of one block to `out`; `raw` is zstd-compressed when that is
  // smaller (and `compress` is true).
  void append_block(std::string& out, BlockType type, uint32_t count, std::string_view raw,
                    bool compress = true);

 private:
  ZSTD_CCtx_s* cctx_;
  int level_;
  std::string scratch_;
};

// Checks and decompresses block payloads, reusing one zstd context.
class BlockDecoder {
 public:
  BlockDecoder();
  ~BlockDecoder();
  BlockDecoder(const BlockDecoder&) = delete;
  BlockDecoder& operator=(const BlockDecoder&) = delete;
  // Verifies the checksum of `stored` (h.stored_size bytes) and yields the raw payload, which
  // points either into `stored` or into an internal buffer valid until the next call.
  bool decode(const BlockHeader& h, const uint8_t* stored, std::string_view* raw, std::string* why);

 private:
  ZSTD_DCtx_s* dctx_;
  std::string buffer_;
};

}  // namespace rastro::trace::binary
