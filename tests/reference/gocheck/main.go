// gocheck checks a running playlog's transparency log with golang.org/x/mod's sumdb/note and
// sumdb/tlog, the reference code behind C2SP signed notes and tiled logs, not with playlog's own.
//
// Usage: gocheck INPUT.json, where INPUT names the log's base URL, its verifier key, the
// witnesses' verifier keys, receipts, older checkpoints and the games' last heads (see Input).
// It opens every checkpoint and receipt with note.Open, reads the hash tiles and the entry
// bundles (C2SP tlog-tiles) and recomputes the root both ways (tlog.TileHashReader and
// tlog.TreeHash; tlog.StoredHashes from the entries), checks that each game tag's entries
// come in increasing seq, proves each game's last head with tlog.ProveRecord / tlog.CheckRecord,
// and each older checkpoint's consistency with tlog.ProveTree / tlog.CheckTree. It prints one
// "ok" line per check and exits 0, or prints "FAIL: ..." and exits 1.
package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type Game struct {
	Tag  string `json:"tag"`  // hex
	Seq  int64  `json:"seq"`  // the game's last seq
	Head string `json:"head"` // hex
}

type Input struct {
	URL         string   `json:"url"`
	LogKey      string   `json:"log_key"`
	WitnessKeys []string `json:"witness_keys"`
	Receipts    []string `json:"receipts"`
	Checkpoints []string `json:"checkpoints"` // older checkpoints kept by a client
	Games       []Game   `json:"games"`
}

func fail(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func get(url string) []byte {
	resp, err := http.Get(url)
	if err != nil {
		fail("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		fail("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return body
}

// cosignature is a note.Verifier for C2SP tlog-cosignature (cosignature/v1, key type 0x04): the
// witness signs "cosignature/v1\ntime <t>\n" || body and its signature is t (8 bytes) || sig.
type cosignature struct {
	name string
	hash uint32
	key  ed25519.PublicKey
}

func (c cosignature) Name() string    { return c.name }
func (c cosignature) KeyHash() uint32 { return c.hash }
func (c cosignature) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	t := binary.BigEndian.Uint64(sig[:8])
	signed := append([]byte(fmt.Sprintf("cosignature/v1\ntime %d\n", t)), msg...)
	return ed25519.Verify(c.key, signed, sig[8:])
}

func cosignatureVerifier(vkey string) note.Verifier {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		fail("not a verifier key: %s", vkey)
	}
	key, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(key) != 33 || key[0] != 0x04 {
		fail("not a cosignature/v1 key: %s", vkey)
	}
	id := sha256.Sum256(append([]byte(parts[0]+"\n"), key...))
	hash := binary.BigEndian.Uint32(id[:4])
	if fmt.Sprintf("%08x", hash) != parts[1] {
		fail("the key id of %s does not match", vkey)
	}
	return cosignature{parts[0], hash, ed25519.PublicKey(key[1:])}
}

type checkpoint struct {
	origin string
	tree   tlog.Tree
}

// open opens a checkpoint with note.Open and parses its body (C2SP tlog-checkpoint).
func open(text []byte, verifiers note.Verifiers, what string) (checkpoint, *note.Note) {
	n, err := note.Open(text, verifiers)
	if err != nil {
		fail("%s: note.Open: %v", what, err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 {
		fail("%s: not a checkpoint", what)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	root, err2 := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || err2 != nil || len(root) != tlog.HashSize {
		fail("%s: not a checkpoint", what)
	}
	var h tlog.Hash
	copy(h[:], root)
	return checkpoint{lines[0], tlog.Tree{N: size, Hash: h}}, n
}

// tiles reads C2SP tiles: tlog's Tile{H: 8, L, N, W} at <url>/tile/<L>/<N>[.p/<W>] (no height in
// the path, unlike the Go checksum database's).
type tiles struct{ url string }

func (t tiles) Height() int { return 8 }
func (t tiles) ReadTiles(ts []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(ts))
	for i, tile := range ts {
		path := strings.TrimPrefix(tile.Path(), "tile/8/")
		out[i] = get(t.url + "/tile/" + path)
	}
	return out, nil
}
func (t tiles) SaveTiles([]tlog.Tile, [][]byte) {}

// stored is an in-memory tlog.HashReader of the hashes recomputed from the entries.
type stored []tlog.Hash

func (s stored) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x >= int64(len(s)) {
			return nil, fmt.Errorf("no stored hash %d", x)
		}
		out[i] = s[x]
	}
	return out, nil
}

func bundlePath(n, width int64) string {
	t := tlog.Tile{H: 8, L: 0, N: n, W: int(width)}
	return "entries/" + strings.TrimPrefix(t.Path(), "tile/8/0/")
}

func main() {
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	var in Input
	if err := json.Unmarshal(raw, &in); err != nil {
		fail("input: %v", err)
	}
	logKey, err := note.NewVerifier(in.LogKey)
	if err != nil {
		fail("log key: %v", err)
	}
	logOnly := note.VerifierList(logKey)
	all := []note.Verifier{logKey}
	for _, k := range in.WitnessKeys {
		all = append(all, cosignatureVerifier(k))
	}
	withWitnesses := note.VerifierList(all...)

	// The newest checkpoint: the log's signature and every witness's cosignature.
	latest, n := open(get(in.URL+"/checkpoint"), withWitnesses, "the checkpoint")
	if len(n.Sigs) != 1+len(in.WitnessKeys) {
		fail("the checkpoint bears %d verified signatures, want the log's and %d witnesses'", len(n.Sigs), len(in.WitnessKeys))
	}
	fmt.Printf("ok checkpoint %s size %d: note.Open verified %d signatures\n", latest.origin, latest.tree.N, len(n.Sigs))

	// The root from the hash tiles (the reader checks each tile against the tree).
	hashes := tlog.TileHashReader(latest.tree, tiles{in.URL})
	root, err := tlog.TreeHash(latest.tree.N, hashes)
	if err != nil || root != latest.tree.Hash {
		fail("the tiles' root %v does not match the checkpoint (%v)", root, err)
	}
	fmt.Printf("ok tiles: tlog.TreeHash over tlog.TileHashReader gives the checkpoint's root\n")

	// The root from the entries: each entry's record hash is the tile's leaf hash, and the tree
	// built from them alone has the checkpoint's root.
	var entries [][]byte
	for first := int64(0); first < latest.tree.N; first += 256 {
		width := latest.tree.N - first
		if width > 256 {
			width = 256
		}
		bundle := get(in.URL + "/tile/" + bundlePath(first/256, width))
		for len(bundle) > 0 {
			if len(bundle) < 2 {
				fail("a bundle ends inside a length")
			}
			size := int(binary.BigEndian.Uint16(bundle[:2]))
			if len(bundle) < 2+size {
				fail("a bundle ends inside an entry")
			}
			entries = append(entries, bundle[2:2+size])
			bundle = bundle[2+size:]
		}
		if int64(len(entries)) != first+width {
			fail("bundle %d holds %d entries, want %d", first/256, int64(len(entries))-first, width)
		}
	}
	var mine stored
	for i, entry := range entries {
		more, err := tlog.StoredHashes(int64(i), entry, mine)
		if err != nil {
			fail("entry %d: %v", i, err)
		}
		mine = append(mine, more...)
		leaf, err := hashes.ReadHashes([]int64{tlog.StoredHashIndex(0, int64(i))})
		if err != nil || leaf[0] != tlog.RecordHash(entry) {
			fail("entry %d does not hash to the tile's leaf", i)
		}
	}
	if root, err := tlog.TreeHash(latest.tree.N, mine); err != nil || root != latest.tree.Hash {
		fail("the entries' root %v does not match the checkpoint (%v)", root, err)
	}
	fmt.Printf("ok entries: %d entries hash to the tiles' leaves and give the checkpoint's root\n", len(entries))

	// Every game's heads in order: a tag's entries come with increasing seqs. The monitor sees
	// tags, seqs and heads, never a game's id.
	type last struct {
		index int64
		seq   int64
		head  []byte
	}
	byTag := map[string]last{}
	for i, entry := range entries {
		if !bytes.HasPrefix(entry, []byte("playlog/head/v2")) || len(entry) != 15+32+8+32 {
			fail("entry %d is not a version-2 leaf", i)
		}
		tag := hex.EncodeToString(entry[15:47])
		seq := int64(binary.BigEndian.Uint64(entry[47:55]))
		if before, ok := byTag[tag]; ok && seq <= before.seq {
			fail("entry %d: the game tagged %s goes from seq %d back to %d", i, tag[:8], before.seq, seq)
		}
		byTag[tag] = last{int64(i), seq, entry[55:]}
	}
	fmt.Printf("ok monitor: %d games' heads in increasing seq\n", len(byTag))

	// Each game's last head: the last entry of its tag, proven in the tree by tlog.CheckRecord.
	for _, game := range in.Games {
		found, ok := byTag[game.Tag]
		if !ok || found.seq != game.Seq || hex.EncodeToString(found.head) != game.Head {
			fail("the game tagged %s: its last head is not the log's last entry of its tag", game.Tag[:8])
		}
		proof, err := tlog.ProveRecord(latest.tree.N, found.index, hashes)
		if err != nil {
			fail("ProveRecord %d: %v", found.index, err)
		}
		record := tlog.RecordHash(entries[found.index])
		if err := tlog.CheckRecord(proof, latest.tree.N, latest.tree.Hash, found.index, record); err != nil {
			fail("CheckRecord of the game tagged %s: %v", game.Tag[:8], err)
		}
	}
	fmt.Printf("ok inclusion: %d games' last heads checked with tlog.CheckRecord\n", len(in.Games))

	// Older checkpoints a client kept: each is consistent with the newest (tlog.CheckTree).
	for i, text := range in.Checkpoints {
		old, _ := open([]byte(text), logOnly, fmt.Sprintf("checkpoint %d", i))
		if old.origin != latest.origin || old.tree.N > latest.tree.N {
			fail("checkpoint %d is not an earlier checkpoint of this log", i)
		}
		proof, err := tlog.ProveTree(latest.tree.N, old.tree.N, hashes)
		if err != nil {
			fail("ProveTree %d -> %d: %v", old.tree.N, latest.tree.N, err)
		}
		if err := tlog.CheckTree(proof, latest.tree.N, latest.tree.Hash, old.tree.N, old.tree.Hash); err != nil {
			fail("CheckTree %d -> %d: %v", old.tree.N, latest.tree.N, err)
		}
	}
	fmt.Printf("ok consistency: %d older checkpoints checked with tlog.CheckTree\n", len(in.Checkpoints))

	// Receipts: signed notes of the log's key.
	for i, receipt := range in.Receipts {
		n, err := note.Open([]byte(receipt), logOnly)
		if err != nil {
			fail("receipt %d: note.Open: %v", i, err)
		}
		if !strings.HasPrefix(n.Text, "playlog/receipt/v") {
			fail("receipt %d is not a receipt", i)
		}
	}
	fmt.Printf("ok receipts: %d opened with note.Open\n", len(in.Receipts))
}
