package tools

import "testing"

func TestRemotePolicyDropsLocalTools(t *testing.T) {
	reg := NewRegistry(&Tool{Name: "web_search"}, &Tool{Name: "list_dir", Local: true}, &Tool{Name: "save_memory"})
	removed := Remote{}.Apply(reg)
	if len(removed) != 1 || removed[0] != "list_dir" || reg.Len() != 2 {
		t.Fatalf("removed %v, left %v", removed, reg.Names())
	}
	if (Remote{}).AllowsLocalPaths() {
		t.Fatal("a remote question may read local paths")
	}
}
