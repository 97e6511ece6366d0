package main

import (
	"log/slog"
	"os"
)

func main() {
	h := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})
	log := slog.New(h)
	log.Info("started", "port", 8080, "debug", true)
	log.Debug("detail", slog.Group("req", "method", "GET", "path", "/x"))
	log.With("user", "ann").Warn("slow", "ms", 250.5)
	log.Error("failed", "err", os.ErrNotExist)
}
