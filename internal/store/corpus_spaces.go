package store

// This file holds embedding spaces (the identity of an embedder whose
// vectors are stored, with the canary probe that detects a changed model)
// and the little-endian float32 encoding every stored vector uses: the
// probe, findings and the packed vector blocks.

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
)

// EmbeddingSpace is a stored embedder identity.
type EmbeddingSpace struct {
	Fingerprint string
	SpecJSON    string
	Dim         int
	Probe       []float32
	State       string
}

// EncodeVector packs v as little-endian float32.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVectorInto appends the float32s in b to dst.
func DecodeVectorInto(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}

// EmbeddingSpace returns a stored space.
func (s *Store) EmbeddingSpace(ctx context.Context, fingerprint string) (*EmbeddingSpace, error) {
	var sp EmbeddingSpace
	var probe []byte
	err := s.db.QueryRowContext(ctx, `SELECT fingerprint, spec_json, dim, probe_vec, state FROM embedding_space WHERE fingerprint = ?`, fingerprint).
		Scan(&sp.Fingerprint, &sp.SpecJSON, &sp.Dim, &probe, &sp.State)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	sp.Probe = DecodeVectorInto(nil, probe)
	return &sp, nil
}

// EmbeddingSpaces lists every stored space.
func (s *Store) EmbeddingSpaces(ctx context.Context) ([]EmbeddingSpace, error) {
	return queryAll(ctx, s.db, func(r scanner) (EmbeddingSpace, error) {
		var sp EmbeddingSpace
		err := r.Scan(&sp.Fingerprint, &sp.SpecJSON, &sp.Dim, &sp.State)
		return sp, err
	}, `SELECT fingerprint, spec_json, dim, state FROM embedding_space ORDER BY created_at`)
}

// PutEmbeddingSpace creates or updates a space.
func (s *Store) PutEmbeddingSpace(ctx context.Context, sp EmbeddingSpace) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO embedding_space (fingerprint, spec_json, dim, probe_vec, state, created_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(fingerprint) DO UPDATE SET spec_json=excluded.spec_json, dim=excluded.dim, probe_vec=excluded.probe_vec, state=excluded.state`,
		sp.Fingerprint, sp.SpecJSON, sp.Dim, EncodeVector(sp.Probe), sp.State, s.ts())
	return err
}
