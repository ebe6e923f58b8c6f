#include "cli/verbosity.h"

namespace hcpsim::cli {
namespace {
Verbosity g_verbosity = Verbosity::Normal;
}  // namespace

void set_verbosity(Verbosity v) { g_verbosity = v; }
Verbosity verbosity() { return g_verbosity; }

}  // namespace hcpsim::cli
