#include "engine/scenario/scenario_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "engine/scenario/limits.h"

namespace hcpsim {

namespace {

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

std::string mib(std::uintmax_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

bool refuse_kind(const std::string& path, mode_t mode, Diagnostics& diags, const std::string& what) {
  if (S_ISREG(mode)) return false;
  if (S_ISDIR(mode)) {
    diags.error("", "'" + path + "' is a directory, not a " + what, 0, 0,
                {"pass a .yaml file, e.g. " + (std::filesystem::path(path) / "<name>.yaml").string()});
  } else {
    diags.error("", "'" + path + "' is " + kind_of(mode) + ", not a " + what, 0, 0,
                {"a scenario is a regular YAML file (see scenarios/*.yaml)"});
  }
  return true;
}

bool refuse_size(const std::string& path, std::uintmax_t size, Diagnostics& diags, const std::string& what) {
  if (size <= limits::kMaxScenarioFileBytes) return false;
  diags.error("", "'" + path + "' is " + mib(size) + "; a " + what + " is at most " +
                      mib(limits::kMaxScenarioFileBytes),
              0, 0, {"is this the right file? a scenario is a few KiB of YAML"});
  return true;
}

}  // namespace

bool read_scenario_bytes(const std::string& path, std::string& text, Diagnostics& diags, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR)
      diags.error("", "cannot open " + what + " '" + path + "': no such file", 0, 0,
                  {"example scenarios are in scenarios/*.yaml"});
    else
      diags.error("", "cannot open " + what + " '" + path + "': " + std::strerror(err));
    return false;
  }
  if (refuse_kind(path, st.st_mode, diags, what) || refuse_size(path, static_cast<std::uintmax_t>(st.st_size), diags, what))
    return false;
  // Non-blocking: if the path was swapped for a FIFO after the check, open and read return at once.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    diags.error("", "cannot open " + what + " '" + path + "': " + std::strerror(errno));
    return false;
  }
  struct stat fst {};
  if (::fstat(fd, &fst) != 0 || refuse_kind(path, fst.st_mode, diags, what) ||
      refuse_size(path, static_cast<std::uintmax_t>(fst.st_size), diags, what)) {
    if (!diags.has_errors()) diags.error("", "cannot read " + what + " '" + path + "'");
    ::close(fd);
    return false;
  }
  text.clear();
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      diags.error("", "cannot read " + what + " '" + path + "': " + std::strerror(errno));
      ::close(fd);
      return false;
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (refuse_size(path, text.size(), diags, what)) {   // the file grew while being read
      ::close(fd);
      return false;
    }
  }
  ::close(fd);
  return true;
}

std::string read_file_or_throw(const std::string& path, const std::string& what, const std::string& kind) {
  Diagnostics diags;
  std::string text;
  if (!read_scenario_bytes(path, text, diags, what))
    throw std::runtime_error(path + ": error: " + kind + ": " +
                             (diags.items().empty() ? std::string("cannot read file") : diags.items().front().message));
  return text;
}

}  // namespace hcpsim
