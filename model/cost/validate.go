package cost

// Validate returns the error Run would return for cfg's configuration
// (an unknown protocol or workload, sizes that make no sense, timeouts in
// the wrong order, ...), without running it: a command line checks its
// flags with it before it starts anything.
func (cfg Config) Validate() error {
	_, err := cfg.normalized()
	return err
}
