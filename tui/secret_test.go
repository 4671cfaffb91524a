package tui

import (
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func ptrSecret(ref, value string) *snapshot.Secret { s := snapshot.NewSecret(ref, value); return &s }

type applyObserver = apply.Observer
