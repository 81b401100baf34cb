package sim
import ("testing";"os";"github.com/warpgraph/warpgraph/sim/timing")
func TestMain(m *testing.M){ c:=m.Run(); println(timing.DebugStats()); os.Exit(c) }
