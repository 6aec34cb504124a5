/* fuzz_gguf.c: libFuzzer harness for the GGUF reader. Each input is a whole
 * file; the reader must return 0 or -1 and never crash or leak. Build with
 * clang and -DLVD_FUZZ=ON; seed it with the GGUFs in share/models and tests/fixtures/models. */
#include "common/gguf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gguf_shape s;
    lvd_err err;
    if (gguf_parse_shape(data, size, size, "fuzz.gguf", &s, &err) == 0) {
        if (!s.known || s.data_offset + s.tensor_bytes > size)
            __builtin_trap();
    } else if (strncmp(err.msg, "fuzz.gguf: ", 11) != 0) {
        __builtin_trap();
    }
    return 0;
}
