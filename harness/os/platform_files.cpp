// Files opened so that what is planted at a path (a symbolic link, a FIFO, a device) is refused
// instead of followed or waited on: harness/os/platform.hpp.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <system_error>

#include "harness/os/platform.hpp"

#ifdef _WIN32
#include <io.h>
#else
#include <poll.h>
#include <unistd.h>
#endif

namespace lb::platform {

namespace {

#ifdef _WIN32
// Windows has no FIFOs at file paths and no O_NOFOLLOW; the checks below still refuse folders
// and devices.
constexpr int no_follow = 0, non_block = 0, close_on_exec = _O_BINARY;
int os_read(int fd, char* data, std::size_t n) { return ::_read(fd, data, unsigned(n)); }
int os_write(int fd, const char* data, std::size_t n) { return ::_write(fd, data, unsigned(n)); }
int os_close(int fd) { return ::_close(fd); }
void make_blocking(int) {}
#else
constexpr int no_follow = O_NOFOLLOW, non_block = O_NONBLOCK, close_on_exec = O_CLOEXEC;
ssize_t os_read(int fd, char* data, std::size_t n) { return ::read(fd, data, n); }
ssize_t os_write(int fd, const char* data, std::size_t n) { return ::write(fd, data, n); }
int os_close(int fd) { return ::close(fd); }
void make_blocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK); }
#endif

std::string kind_of(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "is a folder";
#ifndef _WIN32
  if (S_ISLNK(st.st_mode)) return "is a symbolic link";
  if (S_ISFIFO(st.st_mode)) return "is a FIFO";
  if (S_ISSOCK(st.st_mode)) return "is a socket";
  if (S_ISBLK(st.st_mode)) return "is a block device";
#endif
  if (S_ISCHR(st.st_mode)) return "is a character device";
  return "is not a regular file";
}

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& kind) {
  throw NotRegularFile(file.string() + ": " + kind + ", not a regular file");
}

// What stands at the path itself (a link is not followed); false when nothing does.
bool look_at(const std::filesystem::path& file, bool follow_links, struct stat& st) {
#ifdef _WIN32
  (void)follow_links;
  return ::stat(file.string().c_str(), &st) == 0;
#else
  return (follow_links ? ::stat(file.c_str(), &st) : ::lstat(file.c_str(), &st)) == 0;
#endif
}

// Opens `file` with `flags` (never blocking on a FIFO), then checks that what was opened is a
// regular file, so a swap between the look and the open is caught too.
int open_regular(const std::filesystem::path& file, int flags, bool follow_links) {
  struct stat st {};
  if (look_at(file, follow_links, st) && !S_ISREG(st.st_mode)) refuse(file, kind_of(st));
  const int fd = ::open(file.string().c_str(),
                        flags | non_block | close_on_exec | (follow_links ? 0 : no_follow), 0644);
  if (fd < 0) {
    const int error = errno;
    // ELOOP: a link appeared at the path; ENXIO: a FIFO with no reader.
    if (error == ELOOP || error == ENXIO) refuse(file, "is not a regular file");
    throw std::system_error(error, std::generic_category(), file.string());
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    os_close(fd);
    refuse(file, kind_of(st));
  }
  make_blocking(fd);
  return fd;
}

}  // namespace

std::string read_regular_file(const std::filesystem::path& file, std::size_t max_bytes,
                              bool follow_links) {
  const int fd = open_regular(file, O_RDONLY, follow_links);
  std::string text;
  char chunk[65536];
  // Stop one chunk beyond the limit: a file over it is never held whole.
  while (text.size() <= max_bytes) {
    const auto n = os_read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      os_close(fd);
      throw std::system_error(error, std::generic_category(), file.string());
    }
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
  }
  os_close(fd);
  return text;
}

WriteFile::WriteFile(const std::filesystem::path& file, Mode mode) {
  int flags = O_WRONLY | O_CREAT;
  if (mode == Mode::truncate) flags |= O_TRUNC;
  if (mode == Mode::append) flags |= O_APPEND;
  if (mode == Mode::create_new) flags |= O_EXCL;
  fd_ = open_regular(file, flags, /*follow_links=*/false);
}

WriteFile::~WriteFile() {
  if (fd_ >= 0) os_close(fd_);
}

void WriteFile::write(std::string_view text) {
  while (!text.empty()) {
    const auto n = os_write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    // A short write is followed by another, which reports the reason (ENOSPC, EFBIG).
    if (n < 0) throw std::system_error(errno, std::generic_category(), "write");
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void WriteFile::close() {
  const int fd = fd_;
  fd_ = -1;
  if (fd >= 0 && os_close(fd) != 0)
    throw std::system_error(errno, std::generic_category(), "close");
}

void fill_closed_standard_streams() {
#ifndef _WIN32
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int null_fd = ::open("/dev/null", O_RDONLY);  // the lowest free number: `fd`
      if (null_fd >= 0 && null_fd != fd) ::close(null_fd);
    }
#endif
}

bool stdout_reader_gone() {
#ifdef _WIN32
  return false;
#else
  struct pollfd p {
    STDOUT_FILENO, 0, 0
  };
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
#endif
}

}  // namespace lb::platform
