#include "format/file_bytes.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "onemodel/error.h"

#if !defined(__EMSCRIPTEN__) && (defined(__unix__) || defined(__APPLE__))
#define ONEMODEL_CAN_MAP 1
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace onemodel::format {

namespace {

ImportError io_error(const std::string& input_name, const std::string& what) {
  return ImportError(ImportError::Kind::Io, what, input_name);
}

#ifdef ONEMODEL_CAN_MAP
// Maps the file read-only; the mapping stays valid after the descriptor is closed.
FileBytes map_file(int fd, uint64_t size, const std::string& input_name) {
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) throw io_error(input_name, std::string("cannot map: ") + std::strerror(errno));
  std::shared_ptr<const void> owner(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
  return {{static_cast<const std::byte*>(p), static_cast<size_t>(size)}, std::move(owner), true};
}
#endif

}  // namespace

std::shared_ptr<std::byte> aligned_buffer(size_t size) {
  constexpr std::align_val_t kAlign{64};
  return {static_cast<std::byte*>(::operator new(size == 0 ? 1 : size, kAlign)),
          [](std::byte* p) { ::operator delete(p, kAlign); }};
}

FileBytes load_file(const std::filesystem::path& path, const std::string& input_name) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw io_error(input_name, "is a directory, not a file");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw io_error(input_name, std::string("cannot open: ") + std::strerror(errno));
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw io_error(input_name, "cannot read the size: " + ec.message());
  if (size > static_cast<uint64_t>(SIZE_MAX / 2))
    throw io_error(input_name, "file too large for this platform");
#ifdef ONEMODEL_CAN_MAP
  if (size >= kMapThreshold) return map_file(fileno(file.get()), size, input_name);
#endif
  // Not value-initialised: the read overwrites every byte.
  std::shared_ptr<std::byte> buffer = aligned_buffer(static_cast<size_t>(size));
  if (size > 0 && std::fread(buffer.get(), 1, size, file.get()) != size) {
    throw io_error(input_name, std::string("read failed: ") +
                                   (std::ferror(file.get()) ? std::strerror(errno) : "file shrank"));
  }
  const std::span<const std::byte> bytes(buffer.get(), static_cast<size_t>(size));
  return {bytes, std::move(buffer), false};
}

}  // namespace onemodel::format
