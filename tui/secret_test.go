package tui

import (
	"github.com/zkmigrate/zkmigrate/internal/apply"
	"github.com/zkmigrate/zkmigrate/internal/secret"
)

func ptrSecret(ref, value string) *secret.Secret { s := secret.New(ref, value); return &s }

type applyObserver = apply.Observer
