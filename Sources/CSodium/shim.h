#ifndef FLOWHOST_CSODIUM_SHIM_H
#define FLOWHOST_CSODIUM_SHIM_H

#include <sodium.h>

/* libsodium's sizes are macros Swift sees only partly; these pin them. */
static inline size_t fh_aead_key_bytes(void) { return crypto_aead_xchacha20poly1305_ietf_KEYBYTES; }
static inline size_t fh_aead_nonce_bytes(void) { return crypto_aead_xchacha20poly1305_ietf_NPUBBYTES; }
static inline size_t fh_aead_tag_bytes(void) { return crypto_aead_xchacha20poly1305_ietf_ABYTES; }

#endif
