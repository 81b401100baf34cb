package main

import (
	"os"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// progressReporter returns a callback that draws a progress bar on stderr
// while it is a terminal, and nil (stay quiet) in pipes and CI logs.
func progressReporter() func(stage string, done, total int64) {
	fd := os.Stderr.Fd()
	if !isatty.IsTerminal(fd) && !isatty.IsCygwinTerminal(fd) {
		return nil
	}
	var bar *progressbar.ProgressBar
	var current string
	return func(stage string, done, total int64) {
		if bar == nil || stage != current {
			if bar != nil {
				_ = bar.Finish()
			}
			current = stage
			bar = progressbar.NewOptions64(total,
				progressbar.OptionSetWriter(os.Stderr),
				progressbar.OptionSetDescription(stage),
				progressbar.OptionShowCount(),
				progressbar.OptionThrottle(100_000_000),
				progressbar.OptionClearOnFinish(),
			)
		}
		_ = bar.Set64(done)
		if done >= total {
			_ = bar.Finish()
		}
	}
}
