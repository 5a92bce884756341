//go:build !unix

package session

import "os"

func ownedByMe(os.FileInfo) bool { return true }
