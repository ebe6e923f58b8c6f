#pragma once
// A gzip file compressed by several threads: the bytes written are cut where write() was called,
// each piece is deflated on its own by a pool of threads (ISA-L's igzip at level 1, primed with the
// last 32 KiB of the piece before it, so the ratio is that of one stream), and the pieces are appended in
// order to one gzip member (the layout pigz uses: every piece ends on a byte boundary with a sync
// flush, one final empty block, one CRC-32 over everything). Any gzip reader reads it.
#include <memory>
#include <string>

#include "engine/trace/trace_output.h"

namespace hcpsim {

// Opens `path` for writing; `threads` compressing threads (at least 1), started by the first write,
// so a process that forks between opening and writing forks with one thread. write() copies the
// bytes (write_owned() takes them) and returns while earlier pieces are still being compressed; at
// most one piece per thread plus one wait. Throws TraceWriteError naming
// the file; an error of a compressing thread is thrown by a later write() or by close().
std::unique_ptr<TraceOutput> open_parallel_gzip_output(const std::string& path, int threads);

}  // namespace hcpsim
