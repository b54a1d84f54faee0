import FlowJSON

/// `additionalInfo.jwtJsonTokenInfo` of `onUserLoggedIn` (seeds 003 and 004
/// hand it to the notification and toggle screens): a JSON Web Token
/// (RFC 7519) in compact JWS form, signed with the issuer key (`alg`
/// `EdDSA`, RFC 8037; `kid` is the issuer's key id), so a backend the app
/// talks to can check who is logged in, on which device, since when and
/// with what, against `flowhost admin export-key --issuer`. It carries no
/// secret: claims `iss` ("flowhost"), `sub` (user id), `sid` (session id),
/// `dev` (device id), `iat`, `exp` (the session's absolute end; an earlier
/// logoff or timeout is not in the token) and `amr` (RFC 8176: `pwd`,
/// `bio` for the LDA).
public enum SessionToken {
    public static func make(
        issuer: ReceiptIssuer, userID: String, sessionID: String, deviceID: String, issuedAt: Int64, expiresAt: Int64, factors: [String]
    ) throws -> String {
        let (keyID, _) = try issuer.publicKey()
        let header: JSON = ["alg": "EdDSA", "typ": "JWT", "kid": .string(keyID)]
        let claims: JSON = [
            "iss": "flowhost", "sub": .string(userID), "sid": .string(sessionID), "dev": .string(deviceID), "iat": .int(Int(issuedAt)),
            "exp": .int(Int(expiresAt)), "amr": .array(factors.map { .string($0 == "password" ? "pwd" : $0 == "lda" ? "bio" : $0) }),
        ]
        let signingInput = Base64.encodeURLSafe(Array(header.serialized().utf8)) + "." + Base64.encodeURLSafe(Array(claims.serialized().utf8))
        let (_, signature) = try issuer.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64.encodeURLSafe(signature)
    }
}
