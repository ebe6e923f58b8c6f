// A stand-in libnccl.so.2 for tests/kernels/test_nccl_library_search.cpp: it exports the names
// hcpsim calls (kernels/nccl_library_search.h), nothing behind them but ncclGetVersion, which
// reports HCPSIM_FAKE_NCCL_VERSION so a test can tell which copy was opened. Built twice: complete,
// and with HCPSIM_FAKE_NCCL_WITHOUT_SPLIT lacking ncclCommSplit, as an NCCL older than 2.18 would.
#define FAKE(name) \
  extern "C" __attribute__((visibility("default"))) int name() { return 0; }

extern "C" __attribute__((visibility("default"))) int ncclGetVersion(int* version) {
  *version = HCPSIM_FAKE_NCCL_VERSION;
  return 0;
}
FAKE(ncclGetUniqueId)
FAKE(ncclCommInitRankConfig)
FAKE(ncclCommInitAll)
#ifndef HCPSIM_FAKE_NCCL_WITHOUT_SPLIT
FAKE(ncclCommSplit)
#endif
FAKE(ncclCommDestroy)
FAKE(ncclCommAbort)
FAKE(ncclCommGetAsyncError)
FAKE(ncclCommCount)
FAKE(ncclGroupStart)
FAKE(ncclGroupEnd)
FAKE(ncclSend)
FAKE(ncclRecv)
FAKE(ncclAllGather)
FAKE(ncclReduceScatter)
FAKE(ncclAllReduce)
FAKE(ncclGetErrorString)
