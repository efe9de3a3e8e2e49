// threads.c -- each instance's own state. The module imports a SHARED memory: in a cross-origin isolated page,
// worker threads instantiate it on the page's memory (web/wasm_host.js) and run GEMM row ranges beside the main
// instance, so what a kernel keeps between calls -- today only the GEMM's packing workspace (matmul.c) -- lives in
// thread-local storage (a wasm global __tls_base per instance, data laid out by wasm-ld). The host gives every
// instance, the first one included, a heap block of thread_block_bytes() through thread_init before its first
// kernel call (and each worker a stack of its own through the exported __stack_pointer).
#include "kernels.h"

extern void __wasm_init_tls(void *block); // wasm-ld's: sets this instance's __tls_base, copies the .tdata image
int32_t gemm_workspace_bytes(void);
void gemm_set_workspace(void *p);

static int32_t tls_bytes(void) { return (__builtin_wasm_tls_size() + 63) & ~63; }

EXPORT(thread_block_bytes) int32_t thread_block_bytes(void) { return tls_bytes() + gemm_workspace_bytes(); }

EXPORT(thread_init) void thread_init(char *block) {
  __wasm_init_tls(block);
  gemm_set_workspace(block + tls_bytes());
}
