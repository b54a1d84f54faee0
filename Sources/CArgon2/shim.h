#ifndef FLOWHOST_CARGON2_SHIM_H
#define FLOWHOST_CARGON2_SHIM_H

#include <argon2.h>

/* The length of an encoded Argon2id hash for these parameters (the function
   is exported by libargon2 but kept here with the type FlowHost passes). */
static inline size_t fh_argon2id_encoded_length(uint32_t t, uint32_t m, uint32_t p, uint32_t salt, uint32_t hash) {
    return argon2_encodedlen(t, m, p, salt, hash, Argon2_id);
}

#endif
