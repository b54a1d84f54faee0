#ifndef FLOWHOST_CRYPTO_H
#define FLOWHOST_CRYPTO_H

/* OpenSSL's libcrypto, loaded on first use: P-256 (ES256) device keys. The
 * host links no OpenSSL code: a host whose devices all hold Ed25519 keys
 * (libsodium) never maps libcrypto, so its start-up time and memory do not
 * change; the first P-256 key it meets loads libcrypto.so.3 with dlopen and
 * reaches it through this table. The types come from Debian's libssl-dev
 * headers, so each pointer has libcrypto's own signature.
 *
 * The EC_KEY functions at the end are deprecated in OpenSSL 3 but exported
 * by every libcrypto.so.3: they reach the curve's arithmetic directly,
 * where the EVP route runs the provider layer's decoder search and fetches
 * first, which costs more than the verification (docs/performance.md). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

typedef struct flowhost_crypto_api {
    /* Keys. */
    __typeof__(d2i_PUBKEY) *d2i_PUBKEY;
    __typeof__(i2d_PUBKEY) *i2d_PUBKEY;
    __typeof__(EVP_PKEY_free) *EVP_PKEY_free;
    __typeof__(EVP_PKEY_CTX_new) *EVP_PKEY_CTX_new;
    __typeof__(EVP_PKEY_CTX_new_from_name) *EVP_PKEY_CTX_new_from_name;
    __typeof__(EVP_PKEY_CTX_free) *EVP_PKEY_CTX_free;
    __typeof__(EVP_PKEY_public_check) *EVP_PKEY_public_check;
    __typeof__(EVP_PKEY_keygen_init) *EVP_PKEY_keygen_init;
    __typeof__(EVP_PKEY_CTX_set_group_name) *EVP_PKEY_CTX_set_group_name;
    __typeof__(EVP_PKEY_generate) *EVP_PKEY_generate;
    /* Signing and verifying, SHA-256. */
    __typeof__(EVP_sha256) *EVP_sha256;
    __typeof__(EVP_MD_CTX_new) *EVP_MD_CTX_new;
    __typeof__(EVP_MD_CTX_free) *EVP_MD_CTX_free;
    __typeof__(EVP_DigestVerifyInit) *EVP_DigestVerifyInit;
    __typeof__(EVP_DigestVerify) *EVP_DigestVerify;
    __typeof__(EVP_DigestSignInit) *EVP_DigestSignInit;
    __typeof__(EVP_DigestSign) *EVP_DigestSign;
    /* Signatures: DER, and (r, s). */
    __typeof__(ECDSA_SIG_new) *ECDSA_SIG_new;
    __typeof__(ECDSA_SIG_free) *ECDSA_SIG_free;
    __typeof__(d2i_ECDSA_SIG) *d2i_ECDSA_SIG;
    __typeof__(i2d_ECDSA_SIG) *i2d_ECDSA_SIG;
    __typeof__(ECDSA_SIG_get0_r) *ECDSA_SIG_get0_r;
    __typeof__(ECDSA_SIG_get0_s) *ECDSA_SIG_get0_s;
    __typeof__(ECDSA_SIG_set0) *ECDSA_SIG_set0;
    __typeof__(BN_bin2bn) *BN_bin2bn;
    __typeof__(BN_bn2binpad) *BN_bn2binpad;
    __typeof__(BN_is_negative) *BN_is_negative;
    __typeof__(BN_free) *BN_free;
    /* Errors. */
    __typeof__(ERR_get_error) *ERR_get_error;
    __typeof__(ERR_error_string_n) *ERR_error_string_n;
    __typeof__(ERR_clear_error) *ERR_clear_error;
    /* Verifying a digest with a key made from its point, on a group made once. */
    __typeof__(EC_GROUP_new_by_curve_name) *EC_GROUP_new_by_curve_name;
    __typeof__(EC_GROUP_free) *EC_GROUP_free;
    __typeof__(EC_KEY_new) *EC_KEY_new;
    __typeof__(EC_KEY_free) *EC_KEY_free;
    __typeof__(EC_KEY_set_group) *EC_KEY_set_group;
    __typeof__(EC_KEY_oct2key) *EC_KEY_oct2key;
    __typeof__(ECDSA_verify) *ECDSA_verify;
} flowhost_crypto_api;

/* The table, loading libcrypto.so.3 the first time (thread-safe). NULL when
 * it cannot be loaded; *error then says why (a static string). */
const flowhost_crypto_api *flowhost_crypto_load(const char **error);

#endif
