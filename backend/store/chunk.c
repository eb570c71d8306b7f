/* FastCDC content-defined chunking with normalised chunking (Xia et al.,
 * "FastCDC", USENIX ATC 2016, and its 2020 journal version). The gear table
 * and the masks below define where every file in every store is cut: they
 * are fixed forever, since changing them would make old and new replicas cut
 * the same bytes differently and stop sharing chunks. */
#include "backend/store/chunk.h"

/* 256 random 64-bit values: splitmix64 started from the ASCII seed
 * "hearthCD" read big-endian, in order. The table, not the generator, is
 * the definition; tests pin cut points computed from it. */
static const uint64_t chunk_gear[256] = {
	0x6b9ab1fb49ace724, 0xe197e9b4588217b2, 0x6c9ab6958fcd97e8,
	0x5a8247d8a82f8d2d, 0xf28eaa3d5139265e, 0x8b4503d53479dab5,
	0x82e7dfc663de512c, 0x9fd9b72f30f51586, 0x8dfff33648460802,
	0xccfac0ecf430d318, 0xc1e3af771b48c531, 0xacdc6b1041943e30,
	0x2c44819f941a1081, 0x5a080d2237c2bfe1, 0x030f199a35444b16,
	0x07e7e7240fb15ca2, 0x4ebee06d868336a1, 0x0a8358d0f16daeb2,
	0x367a53c5c874a100, 0x9689d299aff9d70e, 0x13b4063741db782d,
	0x98ed5b338176e49b, 0x32d3d037dd26151b, 0xde70b2a60da77408,
	0xd30e792c3783dc14, 0x55e34b8ef1db1e19, 0x4397218fc7ad1cc9,
	0x487821d93e5375d6, 0xe981702cc794190d, 0xd5a06477c31ddf90,
	0x121e003a6723c841, 0xadaafeabb7f4ffeb, 0xa8746579d85ec57b,
	0x28146fb28624ea8e, 0x5b6a8e0c74ec017e, 0x124c777ff3bb4c3c,
	0x80533e90a53196bc, 0x91fc46ace83000e0, 0x87feee39d9b66e15,
	0xfa41ad1310d4a96c, 0x1c1f6057617a11e6, 0x8326cd256d23069d,
	0x757dd8692c723f87, 0xc18162d34ffb0687, 0xf06106ada2a5931a,
	0x3ab02a4f8801480e, 0x07d123c4fee906c5, 0xd6b78fdf4791eeee,
	0xace6a1f7dc4a6aa4, 0x0bcd92eb859bb489, 0x8903646eb40bb024,
	0x26bbf19b4ea0fa68, 0x593df9e02b105dec, 0x6d550983c60d4473,
	0xaf77e554b7ec49dc, 0xac3c3f6fc3fe9e40, 0x63d9f0009875cdc9,
	0x938b9f82ec8e7d2a, 0xa86f88bb4f7069eb, 0x8f9664e494f7ed90,
	0x8e874e69871792c7, 0xd7afc7715b6ecbf1, 0x86609e7e941a7b6f,
	0x2dd9d10e7d3ef38f, 0xaa128a207c18e85a, 0xd78375277f8a4eb5,
	0x0c7685fb429fbf8e, 0x0abed77500b8152f, 0x6f2dfa48b8d1979c,
	0xd79078d9137d26f3, 0xbe7345a2877215b2, 0x1300f94ef02153f2,
	0x25cac681e1e517fe, 0x67f0705601cf01e2, 0x08daf3d73280d8e4,
	0x48433a77420ef4c2, 0x2dbd0f373c3d0d06, 0xe804d186f0661eb8,
	0x1dde1752cadf510c, 0xe98c4a297ab27fbb, 0x9c4d666c1c70d6e4,
	0xd86002d9136ee73b, 0x372181fbf72fbbcc, 0x0e23f03336232db6,
	0x69005ecffa7ac52c, 0x3efa05d529a70fe0, 0x78056dd2cc2caafb,
	0xb1ef74eea1dd994b, 0x2592cd90f0d2bb15, 0xe75dc31ab9e18c1f,
	0xb311f60cc31d18cd, 0xaf76044d06d0c16b, 0xa305cb8e26c37263,
	0x3293b2ea02082096, 0x385709696a1dd37b, 0x6e6fb1bc93a73af7,
	0xf9a9a491eeb030f5, 0x8fd67ae0f9c75081, 0x5a3f635fef086a67,
	0x6ebc17941260979d, 0xcc61062d2f3bc56b, 0x03b1b98eb29183d7,
	0x936cb85b6d4bf25a, 0xdd7ed8e3fc07734e, 0xbc32cca05f8c0835,
	0x4889be34d2ff3819, 0x019c3e11b62040c1, 0x0a90b6c7b52bcf5b,
	0x64f64689f283f0e1, 0x10334186ca69b371, 0x6b32596266aea86b,
	0x4121b7c7a135bb63, 0x5ea7aeb748f76c4f, 0xf68e4105766e03ea,
	0xf62fbc07c4cd6350, 0xe170ef29e6dbc71f, 0xcb64ac818abfa722,
	0x3608403989c8a9b4, 0xdedd0136f75849b1, 0x67ce492e470ef371,
	0x4dc0811e5704ab34, 0xc26f5264e0f5d4d4, 0xbe55d96da41b2e2f,
	0xb262c2772e1c7416, 0xc21695de393f57dc, 0xfb0a5ca9aa81b957,
	0x812b5c40f87345a1, 0xd7dbfa1418ec771a, 0xfcce30a925ca7231,
	0xd6782db905ab2ffb, 0x09b546a7350af586, 0x1df4ffe8e04289e9,
	0x6a7c8f52ae53e843, 0x4ec359234f3305fe, 0x9b17cac3929d00f2,
	0x7ea8c304e34fd5b0, 0x90202fc22228eb2f, 0x0733d6fb40d42ff7,
	0x769c08ec722350b6, 0x2add708cd42bf88b, 0x738afb5fafc352da,
	0x365145ad2c58e075, 0x96a356e842b946a0, 0xc1b2bc6e016bb3fa,
	0xb864236d832b09e0, 0x00200f0a4ca39de9, 0xb35949f22ffd0b73,
	0x890b440e6db803a1, 0x2f51d88d88222742, 0xa4c67ffd892cf574,
	0xd891398f0a6ab53c, 0x58b7afffa7b7f3b5, 0x45c7482a1e722e7b,
	0x5180e7c1e46376cb, 0x1480e4ac488b5d13, 0x6822bd4671e0d957,
	0xd65c81fc37702b6b, 0x8c3ae99f03ef8309, 0x6d2d0355720551ff,
	0xa563a5dc00f4bf0d, 0xc271f4edfbaac7ab, 0x76169f6d060c3756,
	0x76a7450ec9050675, 0x496126b59c01fc4e, 0x7339174d2dd34fce,
	0xd0065d9f625b54dc, 0x779fa675234b7e3e, 0xf658b65347518c21,
	0x1cf2627a730d4e90, 0x937f1d1f6bf450ac, 0xa2abdd90e4bc6f17,
	0xd2a331e696805cfb, 0xfc7b3679c5f4620a, 0xe9548922ff868f18,
	0x10d92397ba1610ac, 0x83b2df7335f01932, 0xfe9d74db269d913e,
	0xbb585c6fda8b53d7, 0xcbf5a819d6b192ae, 0x0b3ac81c9a5b992c,
	0xf74b06afbe1d665c, 0xf3659df0fd51407d, 0xba3862dabb781e55,
	0xe1a84e2bb4291bfd, 0xa0e4b1689b5a93dd, 0x5c0faab07c19ace6,
	0x8e2c90e42eb1c21b, 0x5b9df4855d2aa2c2, 0xad443d80a39e8b6a,
	0xea2280fc1d63a3d6, 0x5a7462e6234e214d, 0xac4591e11a02fc7c,
	0x2c810dc0e63d668f, 0x314acb65ed8f17e9, 0x2d845421db08acd9,
	0x2a21b5239e57baf5, 0x223e5cd557580334, 0xd28c7f5a272bb37b,
	0xf06455c4957367e3, 0x958068c0268ef472, 0x81375b6c453678ec,
	0x0fc8bbd1c730fa2e, 0xd6a425df5af56827, 0xd6aed03d3f0bd2b1,
	0x3df1fa54f12156dc, 0xb506b012daef0dea, 0xcfa52cb72478b2cd,
	0x676d42f8a6acc25c, 0x13e8183587b8f5e7, 0x56c5cbe9443b5c87,
	0x988e2d082d3d163e, 0x20b36d4287e3bb84, 0xa0aa510ac8a85452,
	0xa7f07f9c94c82fc4, 0x252445922475964c, 0x9f84a9c9244152c0,
	0xdfda4288306f9b51, 0xd110d5a6dac8468b, 0xd664b5d48a6ee56d,
	0x7606d868f5276dc5, 0x770a971c701ac02f, 0xe3c73e5dbb5036eb,
	0xd522f54e0b771f0e, 0x6311330f8c9391a2, 0x706e17a60a687dd6,
	0x2407b7a24cfd0552, 0x075886a85227b1ed, 0x6b97c9aa0ef18713,
	0x66d29e3f89557064, 0x05300c1723df7f52, 0x993a6673d2cc88ca,
	0x0a31f8ec3dca27bb, 0x6768f4be8e808f89, 0xf872c527e2dce98d,
	0x0dfcbfc2e4c8ec24, 0x1472a93bf1861e25, 0x8564991db9b2ebd7,
	0x59fce482874b3a83, 0xb516da4f4cdea390, 0x4a6a13348c0fe7f8,
	0xeeb5deea105591e9, 0x669f653df151d5c4, 0x0eb67a3ca85baaad,
	0x7463c107f37c5241, 0xfa3c92ad5a22e08f, 0xac0c02add26bf0c8,
	0x7dbcd5b2baa21d57, 0xafc1bece5c50cb67, 0x1b038fe09b9baeb2,
	0xe14cf57f231ba596, 0xe860bc22a48bf4b5, 0x544250888ea531c8,
	0x025e333cb765d517, 0x5fba1357370e7e36, 0x432cd93811a4913c,
	0xcdb378343c13aaf9,
};

/* Normalised chunking, level 2: below the average size a cut needs 22 zero
 * bits (2^-22 per byte), above it 18 (2^-18), which pulls chunk sizes
 * towards the average. The bits are taken from the top of the hash, where
 * each depends on the last 41 to 62 bytes; a low-bit mask would see only
 * the last 18 to 22. Bit 63 is left out so both masks survive the shift by
 * one that the two-bytes-per-step loop applies. */
#define CHUNK_MASK_STRICT (((UINT64_C(1) << 22) - 1) << 40)
#define CHUNK_MASK_LOOSE (((UINT64_C(1) << 18) - 1) << 44)

/* A byte's influence leaves the hash after 64 shifts, so hashing the 64
 * bytes before the first eligible cut makes every cut depend only on the
 * bytes around it, not on where the chunk started. */
#define CHUNK_WARM_UP 64

/* Scans data[from, to) for a cut and returns the chunk length it gives, or
 * 0 when there is none (a cut is never shorter than CHUNK_MIN). Two bytes
 * per step, as in FastCDC 2020: the first byte is tested on the hash
 * shifted left by one, the same test as on the unshifted hash because the
 * masks leave bit 63 free. */
static size_t
chunk_scan(const uint8_t *data, size_t from, size_t to, uint64_t *hash, uint64_t mask)
{
	uint64_t value = *hash;
	uint64_t mask_shifted = mask << 1;
	size_t i = from;

	for (; i + 2 <= to; i += 2) {
		value = (value << 2) + (chunk_gear[data[i]] << 1);
		if ((value & mask_shifted) == 0)
			return i + 1;
		value += chunk_gear[data[i + 1]];
		if ((value & mask) == 0)
			return i + 2;
	}
	if (i < to) {
		value = (value << 1) + chunk_gear[data[i]];
		if ((value & mask) == 0)
			return i + 1;
	}
	*hash = value;
	return 0;
}

/* at_end adds nothing to the scan: with fewer than CHUNK_MAX bytes, the
 * last byte given ends the chunk when no cut comes before it, and the
 * caller knows whether that is the true end (chunk.h). */
size_t
chunk_next(const uint8_t *data, size_t length, bool at_end)
{
	if (length <= CHUNK_MIN)
		return length;
	size_t limit = length < CHUNK_MAX ? length : CHUNK_MAX;
	size_t first_test = CHUNK_MIN - 1;	/* the byte whose cut gives CHUNK_MIN */
	uint64_t hash = 0;

	for (size_t i = first_test - CHUNK_WARM_UP; i < first_test; i++)
		hash = (hash << 1) + chunk_gear[data[i]];
	size_t loose_from = CHUNK_AVERAGE - 1 < limit ? CHUNK_AVERAGE - 1 : limit;
	size_t cut = chunk_scan(data, first_test, loose_from, &hash, CHUNK_MASK_STRICT);
	if (cut == 0)
		cut = chunk_scan(data, loose_from, limit, &hash, CHUNK_MASK_LOOSE);
	return cut != 0 ? cut : limit;
}
