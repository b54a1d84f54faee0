#ifndef FLOWHOST_CSODIUM_SHIM_H
#define FLOWHOST_CSODIUM_SHIM_H

#include <sodium.h>

/* libsodium's sizes are macros Swift sees only partly; these pin them. */
static inline size_t fh_aead_key_bytes(void) { return crypto_aead_xchacha20poly1305_ietf_KEYBYTES; }
static inline size_t fh_aead_nonce_bytes(void) { return crypto_aead_xchacha20poly1305_ietf_NPUBBYTES; }
static inline size_t fh_aead_tag_bytes(void) { return crypto_aead_xchacha20poly1305_ietf_ABYTES; }

static inline size_t fh_sign_public_key_bytes(void) { return crypto_sign_PUBLICKEYBYTES; }
static inline size_t fh_sign_secret_key_bytes(void) { return crypto_sign_SECRETKEYBYTES; }
static inline size_t fh_sign_bytes(void) { return crypto_sign_BYTES; }

static inline size_t fh_base64_encoded_length(size_t bytes) { return sodium_base64_ENCODED_LEN(bytes, sodium_base64_VARIANT_ORIGINAL); }
static inline int fh_base64_variant_original(void) { return sodium_base64_VARIANT_ORIGINAL; }
/* RFC 4648 §5 without padding: JSON Web Tokens' base64url. */
static inline size_t fh_base64url_encoded_length(size_t bytes) { return sodium_base64_ENCODED_LEN(bytes, sodium_base64_VARIANT_URLSAFE_NO_PADDING); }
static inline int fh_base64_variant_urlsafe_no_padding(void) { return sodium_base64_VARIANT_URLSAFE_NO_PADDING; }

#endif
