//go:build !race

package zstd

// raceEnabled stands in for the Go tree's internal/race.Enabled.
const raceEnabled = false
