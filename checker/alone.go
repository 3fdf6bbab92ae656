package checker

// alone holds a v that no other value shares a 64-byte cache line with:
// a value one worker writes often while the others read or write it, or
// read what would lie next to it. The workers' claims on the frontier,
// the state counter, and each worker's encoder and expansion are alone.
type alone[T any] struct {
	_ [64]byte
	v T
	_ [64]byte
}
