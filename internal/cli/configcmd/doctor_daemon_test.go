package configcmd

import (
	"strings"
	"testing"
)

// Doctor names the chat voice/image models, and fails on one the daemon
// would refuse at start (no image_support, missing key).
func TestDoctorDaemonMediaModels(t *testing.T) {
	srv := fakeProvider(t, "openai", "k")
	base := modelConfig("openai", srv.URL+"/v1", "m-small") + "[models.eyes]\napi = \"p\"\nid = \"m-large\"\n"
	for name, tc := range map[string]struct {
		extra, key, want string
		fail             bool
	}{
		"ok":          {"image_support = true\n[daemon]\ntranscription_model = \"m\"\nvision_model = \"eyes\"\n", "k", "✓ daemon    chat voice via m (m-small at " + srv.URL + "/v1), images via eyes (m-large at", false},
		"no images":   {"[daemon]\nvision_model = \"eyes\"\n", "k", `✗ daemon    config: daemon.vision_model "eyes" does not say image_support = true`, true},
		"unknown key": {"[daemon]\nvoice = \"m\"\n", "k", "✗ daemon    config: unknown key daemon.voice", true},
		"no key":      {"[daemon]\ntranscription_model = \"m\"\n", "", "✗ daemon    daemon.transcription_model:", true},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"config.toml": base + tc.extra}, "P_KEY", tc.key)
			out, err := e.doctor(t)
			if !strings.Contains(out, tc.want) || (err != nil) != tc.fail {
				t.Fatalf("err = %v\n%s", err, out)
			}
		})
	}
}
