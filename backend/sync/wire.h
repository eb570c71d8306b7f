/* The sync protocol's wire format (docs/DESIGN.md §8):
 * frames and their payloads, encoded and decoded on bytes alone, with no
 * I/O, so the decoders can be unit-tested and fuzzed. Every decoder takes
 * hostile input: it checks each length against what is left and against
 * the limits below before using it, and never allocates from a count the
 * peer claims.
 *
 * A frame is
 *   u32 length (big-endian; of the payload alone, at most WIRE_PAYLOAD_MAX)
 *   u8  type   (enum wire_type)
 *   payload    (length bytes)
 *   u32 crc32c (big-endian; of the type byte and the payload)
 * Integers inside payloads are LEB128 varints unless said otherwise; ids and
 * hashes are raw bytes; "bytes" is a varint length and that many bytes. */
#ifndef HEARTH_BACKEND_WIRE_H
#define HEARTH_BACKEND_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/hearth.h"
#include "model/buffer.h"
#include "model/id.h"

#define WIRE_MAGIC "HEARTHSY"
#define WIRE_MAGIC_SIZE 8
/* The protocol versions this hearth speaks. A newer hearth keeps speaking
 * the older ones it still lists, so two versions pick the highest both
 * know (wire_negotiate).
 *   1  sync: HELLO, then OPS/BLOB, WANT, CHUNK each way, then DONE.
 *   2  adds fetching chunks by id (fsck --repair): the HELLO flag
 *      WIRE_FETCH and the LACK frame. A sync is the same in 1 and 2.
 *   3  adds the op hash chain (store.h): HELLO carries the chain at each
 *      counter of its version vector, so two Homes holding different ops
 *      under one replica id find it before anything travels; OPS_END
 *      carries the chain at the last op sent of each replica, so the
 *      receiver proves every op it took in before it writes any. */
/*   4  adds deltas: after each WANT frame the receiver sends a BASES frame
 *      naming, for each wanted chunk, a chunk it holds that the wanted one
 *      is likely near (the same chunk of the node's content it holds now),
 *      or the zero hash; the sender may answer with a CHUNK of codec
 *      WIRE_CODEC_DELTA against that base. */
/*   5  adds chunks as the sender's pack stores them: a chunk alone in a
 *      frame travels as that frame, a zstd frame (codec WIRE_CODEC_ZSTD)
 *      the receiver decodes to check and then keeps as its own frame, or
 *      raw bytes that did not shrink (WIRE_CODEC_INCOMPRESSIBLE), which the
 *      receiver stores raw without trying to compress them. */
#define WIRE_PROTOCOL_MIN 1
#define WIRE_PROTOCOL_MAX 5
#define WIRE_PROTOCOL_FETCH 2	/* the first version that can fetch */
#define WIRE_PROTOCOL_CHAINS 3	/* the first version with op hash chains */
#define WIRE_PROTOCOL_DELTAS 4	/* the first version with BASES and delta chunks */
#define WIRE_PROTOCOL_STORED 5	/* the first version with chunks as their pack stores them */

#define WIRE_HEADER_SIZE 5
#define WIRE_TRAILER_SIZE 4
/* A chunk (at most CHUNK_MAX, 4 MiB) and its header fit with room to spare. */
#define WIRE_PAYLOAD_MAX (8u * 1024 * 1024)
/* Hashes in one WANT or BLOB frame: 2 MiB of them. */
#define WIRE_HASHES_MAX 65536
#define WIRE_SOFTWARE_MAX 64
#define WIRE_MESSAGE_MAX 4096
#define WIRE_CHUNK_DATA_MAX (4u * 1024 * 1024)	/* CHUNK_MAX */

enum wire_type {
	WIRE_HELLO = 1,		/* both ways, first: who we are and what we hold */
	WIRE_ERROR = 2,		/* either way, last: why the sender stops */
	WIRE_OPS = 3,		/* sender: a batch of encoded ops */
	WIRE_BLOB = 4,		/* sender: (part of) a multi-chunk blob's chunk list */
	WIRE_OPS_END = 5,	/* sender: no more ops; how many there were */
	WIRE_WANT = 6,		/* receiver: chunks it lacks */
	WIRE_WANT_END = 7,	/* receiver: no more wants; how many */
	WIRE_CHUNK = 8,		/* sender: one wanted chunk's bytes */
	WIRE_CHUNKS_END = 9,	/* sender: every wanted chunk was sent */
	WIRE_DONE = 10,		/* server, last: its version vector after the sync */
	WIRE_LACK = 11,		/* server, protocol 2: a wanted chunk it cannot give */
	WIRE_BASES = 12,	/* receiver, protocol 4: a base per chunk of the WANT before */
};
#define WIRE_TYPE_LAST WIRE_BASES

/* HELLO flags: what the client asks for. */
#define WIRE_PULL 1u	/* the server sends the ops the client lacks */
#define WIRE_PUSH 2u	/* the client sends the ops the server lacks */
/* Protocol 2, alone: the client sends WANT frames and WANT_END; the server
 * answers each wanted chunk in order with CHUNK or LACK, then CHUNKS_END
 * (the CHUNK frames sent) and DONE. No ops travel; nothing is written on
 * the server. What fsck --repair uses to fetch damaged or missing chunks. */
#define WIRE_FETCH 4u
/* Protocol 3, with PULL alone: the server sends the ops above the client's
 * vector of the client's own replica too (an honest client lowers its
 * vector only to fetch its damaged ops again: fsck --repair). */
#define WIRE_REFETCH 8u
#define WIRE_FLAGS_KNOWN (WIRE_PULL | WIRE_PUSH | WIRE_FETCH | WIRE_REFETCH)

/* CHUNK codecs; version 1 sends chunks raw (packs compress them). */
#define WIRE_CODEC_RAW 0
/* Protocol 4: the base's id[32], then the chunk as a delta against it
 * (store/delta.h), the base one the receiver named in BASES. */
#define WIRE_CODEC_DELTA 2
/* Protocol 5: the chunk as one zstd frame, which decodes to it. */
#define WIRE_CODEC_ZSTD 1
/* Protocol 5: the chunk's raw bytes, which the sender's pack found do not
 * shrink. */
#define WIRE_CODEC_INCOMPRESSIBLE 3

const char *wire_type_name(uint8_t type);

/* ---- frames ------------------------------------------------------------------ */

/* Starts a frame of type at the end of out; returns where it starts, for
 * wire_end. The payload is appended to out in between. */
size_t wire_begin(struct buffer *out, enum wire_type type);
/* Fills in the length and appends the checksum. false when the payload
 * grew past WIRE_PAYLOAD_MAX (a bug in the encoder's caller). */
bool wire_end(struct buffer *out, size_t start);

struct wire_frame {
	uint8_t type;
	const uint8_t *payload;	/* points into the bytes parsed */
	size_t length;
};

/* Checks a frame header: a known type and a length within the limit.
 * Writes the payload length to *length. */
bool wire_parse_header(const uint8_t header[WIRE_HEADER_SIZE], size_t *length,
    struct hearth_error *error);

/* Parses the frame at the start of data. Returns 1 and sets *used when a
 * whole valid frame is there, 0 when more bytes are needed, -1 with error
 * filled when the bytes cannot be a valid frame (unknown type, oversized
 * length, bad checksum). */
int wire_parse_frame(const uint8_t *data, size_t length, struct wire_frame *out, size_t *used,
    struct hearth_error *error);

/* Decodes the payload by its type and throws the result away: what a
 * fuzzer and the tests call to run every decoder on arbitrary bytes. */
bool wire_check_payload(const struct wire_frame *frame, struct hearth_error *error);

/* ---- payloads ---------------------------------------------------------------- */

/* HELLO: magic[8], min, max, flags, bytes software, home[16], replica[16],
 * vv (count, then replica[16] counter per entry, sorted by replica, no
 * duplicates, counters > 0). This layout never changes: it is read before
 * a version is agreed on. A later version may append fields; they are
 * ignored by earlier ones. Protocol 3 appends, for each vv entry in
 * order, chain[32]: the op hash chain at that replica and counter. */
struct wire_hello {
	uint32_t protocol_min, protocol_max;
	uint32_t flags;
	char software[WIRE_SOFTWARE_MAX + 1];	/* "hearth 0.1.0" */
	uint8_t home[ID_BYTES];
	struct replica_id replica;
	struct vv vv;				/* owned; wire_hello_free */
	/* vv.count chains, or NULL when the sender sent none (protocol
	 * 1 and 2). Owned when decoded; the encoder only reads them. */
	struct hash *chains;
};

void wire_encode_hello(struct buffer *out, const struct wire_hello *hello);
/* On success out->vv is allocated (free with wire_hello_free); on failure
 * nothing is held. */
bool wire_decode_hello(const uint8_t *payload, size_t length, struct wire_hello *out,
    struct hearth_error *error);
void wire_hello_free(struct wire_hello *hello);

/* Picks the highest version both ranges hold; false with a message that
 * names both ranges when there is none. */
bool wire_negotiate(uint32_t our_min, uint32_t our_max, uint32_t their_min, uint32_t their_max,
    uint32_t *chosen, struct hearth_error *error);

/* ERROR: bytes message (at most WIRE_MESSAGE_MAX). out gets it with
 * control characters replaced, NUL-terminated. */
void wire_encode_error(struct buffer *out, const char *message);
bool wire_decode_error(const uint8_t *payload, size_t length, char *out, size_t out_size,
    struct hearth_error *error);

/* OPS: count, then count x bytes (an op's canonical encoding). Read with a
 * cursor: wire_ops_begin checks the count, wire_ops_next hands out one
 * encoded op at a time and, at the end, checks nothing trails. */
struct wire_ops {
	struct reader reader;
	uint64_t remaining;
};

bool wire_ops_begin(const uint8_t *payload, size_t length, struct wire_ops *out,
    struct hearth_error *error);
/* 1 and an op's bytes (pointing into the payload), 0 at the end, -1 on
 * malformed input. */
int wire_ops_next(struct wire_ops *ops, const uint8_t **body, size_t *length,
    struct hearth_error *error);

/* BLOB: blob[32], size, total (chunks in the whole list, >= 2), first
 * (index of this frame's first chunk), count (1..WIRE_HASHES_MAX), then
 * count x hash[32]. A long list comes in several frames, in order. */
struct wire_blob {
	struct hash blob;
	uint64_t size;
	uint64_t total, first;
	size_t count;
	const uint8_t *hashes;	/* count x HASH_BYTES, pointing into the payload */
};

void wire_encode_blob(struct buffer *out, const struct hash *blob, uint64_t size,
    uint64_t total, uint64_t first, const struct hash *hashes, size_t count);
bool wire_decode_blob(const uint8_t *payload, size_t length, struct wire_blob *out,
    struct hearth_error *error);

/* WANT: count (1..WIRE_HASHES_MAX), then count x hash[32]. */
void wire_encode_hashes(struct buffer *out, const struct hash *hashes, size_t count);
bool wire_decode_hashes(const uint8_t *payload, size_t length, const uint8_t **hashes,
    size_t *count, struct hearth_error *error);

/* OPS_END in protocol 3: the count of ops, then n, then n x (replica[16]
 * counter chain[32]): each replica's last op sent and the op hash chain
 * there. In protocols 1 and 2 the count alone, which the decoder takes
 * too (claims NULL, n 0). */
struct wire_chain_claim {
	struct replica_id replica;
	uint64_t counter;
	struct hash chain;
};

void wire_encode_ops_end(struct buffer *out, uint64_t count, const struct wire_chain_claim *claims,
    size_t n);
/* On success *claims is allocated when *n > 0 (free it). */
bool wire_decode_ops_end(const uint8_t *payload, size_t length, uint64_t *count,
    struct wire_chain_claim **claims, size_t *n, struct hearth_error *error);

/* OPS_END, WANT_END, CHUNKS_END: one count (of ops, wants, chunks). */
void wire_encode_count(struct buffer *out, uint64_t count);
bool wire_decode_count(const uint8_t *payload, size_t length, uint64_t *count,
    struct hearth_error *error);

/* CHUNK: hash[32], u8 codec, then the chunk's bytes (at most
 * WIRE_CHUNK_DATA_MAX). The hash is checked by the receiver, not here.
 * wire_decode_chunk takes raw chunks only; wire_decode_chunk_coded every
 * codec: a delta (WIRE_CODEC_DELTA: *base its base, data the delta), a
 * zstd frame or incompressible raw bytes (data the chunk as coded). Which
 * codec the protocol agreed on allows is the caller's to check. */
void wire_encode_chunk_header(struct buffer *out, const struct hash *chunk);
void wire_encode_coded_header(struct buffer *out, const struct hash *chunk, uint8_t codec);
void wire_encode_delta_header(struct buffer *out, const struct hash *chunk,
    const struct hash *base);
bool wire_decode_chunk(const uint8_t *payload, size_t length, struct hash *chunk,
    const uint8_t **data, size_t *data_length, struct hearth_error *error);
bool wire_decode_chunk_coded(const uint8_t *payload, size_t length, struct hash *chunk,
    uint8_t *codec, struct hash *base, const uint8_t **data, size_t *data_length,
    struct hearth_error *error);

/* LACK: hash[32], then bytes reason (at most WIRE_MESSAGE_MAX): why the
 * server cannot give that chunk (it does not hold it, or its copy is
 * damaged too). reason gets it with control characters replaced. */
void wire_encode_lack(struct buffer *out, const struct hash *chunk, const char *reason);
bool wire_decode_lack(const uint8_t *payload, size_t length, struct hash *chunk, char *reason,
    size_t reason_size, struct hearth_error *error);

/* DONE: ops the server took in, then its version vector as in HELLO. */
void wire_encode_done(struct buffer *out, uint64_t ops_new, const struct vv *vv);
/* On success *vv is allocated (vv_free). */
bool wire_decode_done(const uint8_t *payload, size_t length, uint64_t *ops_new, struct vv *vv,
    struct hearth_error *error);

#endif
