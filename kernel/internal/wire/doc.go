// Package wire is the Jupyter messaging wire format: the multipart frames of
// one message, their JSON parts and the HMAC signature that authenticates
// them.
//
// # Frames
//
// A message on a ROUTER or PUB socket is a list of frames:
//
//	identities... "<IDS|MSG>" signature header parent_header metadata content buffers...
//
// The identities route a reply back to the client that asked; the
// signature is the lowercase hex HMAC of the four JSON parts, in that
// order, with the key and the scheme of the connection file. An empty key
// turns signing off: the signature frame is then empty and not checked.
//
// # Verification
//
// Decode checks the signature in constant time (hmac.Equal) before it
// parses any JSON, so a forged message costs no more than one hash and
// never reaches a handler. Every malformed input returns an error wrapping
// one of the Err values; Decode never panics (FuzzDecode checks it).
//
// EncodeContent and DecodeContentOnly handle the minimal messages of
// protocol 5.6's start-up handshake: one content frame after the
// delimiter and its signature, with no header.
//
// BUG(gnnlab): Header keeps the fields of protocol 5.5 only (subshell_id
// among them); unknown header fields of a request (a later protocol's)
// are dropped from the parent_header of its replies.
package wire
