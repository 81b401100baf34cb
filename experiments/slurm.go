package experiments

import (
	"fmt"
	"path/filepath"
	"strings"
)

// SlurmJob is a sweep as a Slurm job array: array task i runs shard i of
// Shards into Out/shard-i-of-N, and `warpgraph sweep merge` joins them.
type SlurmJob struct {
	Experiment string
	Shards     int
	// Out is the sweep's output folder (absolute: jobs may start anywhere).
	Out string
	// Binary is the warpgraph binary the jobs run and Workdir where they
	// run it (the repository, for relative graph paths).
	Binary, Workdir string
	// Args are the sweep's flags (target, configurations, filter,
	// parameters), without --out and --shard.
	Args []string
	// Options are sbatch options (partition, time, GPUs), one per
	// #SBATCH line.
	Options []string
	// CPUsPerTask, when positive, is each task's --cpus-per-task: the
	// threads of its simulations (--sim-threads × --jobs).
	CPUsPerTask int
}

// SetsCPUsPerTask says whether sbatch options (SlurmOptions) set
// --cpus-per-task (or -c).
func SetsCPUsPerTask(options []string) bool {
	for _, o := range options {
		if strings.HasPrefix(o, "--cpus-per-task") || strings.HasPrefix(o, "-c") && !strings.HasPrefix(o, "--") {
			return true
		}
	}
	return false
}

// ShardDir is the output folder of shard i of n under out.
func ShardDir(out string, i, n int) string {
	return filepath.Join(out, fmt.Sprintf("shard-%d-of-%d", i, n))
}

// SlurmOptions splits an --slurm-opts string into sbatch options: fields
// separated by spaces, a field that does not start with '-' joining the
// option before it ("-p gpu" stays one option).
func SlurmOptions(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if len(out) > 0 && !strings.HasPrefix(f, "-") {
			out[len(out)-1] += " " + f
			continue
		}
		out = append(out, f)
	}
	return out
}

// Script returns the batch script.
func (j SlurmJob) Script() string {
	var b strings.Builder
	n := j.Shards
	shard := ShardDir(j.Out, 0, n) // shard-0-of-N: the index is replaced below
	prefix, suffix, _ := strings.Cut(shard, "shard-0-")
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# warpgraph sweep %s as a Slurm job array: array task i runs shard i of %d.\n", j.Experiment, n)
	fmt.Fprintf(&b, "# Submit:  sbatch %s\n", shellQuote(filepath.Join(j.Out, "sweep.sbatch")))
	fmt.Fprintf(&b, "# Then:    %s sweep merge %s --out %s\n", shellQuote(j.Binary), shellQuote(prefix)+"shard-*-"+shellQuote(suffix), shellQuote(j.Out))
	fmt.Fprintf(&b, "# A task that is killed or times out can be resubmitted: the sweep resumes.\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=warpgraph-%s\n", j.Experiment)
	fmt.Fprintf(&b, "#SBATCH --array=1-%d\n", n)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n")
	if j.CPUsPerTask > 0 {
		fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", j.CPUsPerTask)
	}
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(j.Out, "slurm-%A_%a.out"))
	for _, o := range j.Options {
		fmt.Fprintf(&b, "#SBATCH %s\n", o)
	}
	fmt.Fprintf(&b, "set -euo pipefail\n")
	fmt.Fprintf(&b, "cd %s\n", shellQuote(j.Workdir))
	fmt.Fprintf(&b, "i=\"$SLURM_ARRAY_TASK_ID\"\n")
	args := []string{shellQuote(j.Binary), "sweep", shellQuote(j.Experiment)}
	for _, a := range j.Args {
		args = append(args, shellQuote(a))
	}
	args = append(args, "--shard", fmt.Sprintf("\"$i/%d\"", n), "--out", shellQuote(prefix)+"\"shard-$i-\""+shellQuote(suffix))
	fmt.Fprintf(&b, "exec %s\n", strings.Join(args, " "))
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellQuote quotes a word for a POSIX shell (for printing commands).
func ShellQuote(s string) string { return shellQuote(s) }
