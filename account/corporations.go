package account

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"cardpay/nta"
	"cardpay/store"
)

// Registry answers corporation searches from an outside registry: the National Tax
// Agency's corporate-number Web-API (package nta).
type Registry interface {
	Search(ctx context.Context, q string) ([]nta.Corporation, error)
	// Numbers looks several corporate numbers up, in one request where it can.
	Numbers(ctx context.Context, numbers []string) ([]nta.Corporation, error)
}

// Corporations is 法人名検索, the rule the supplier pages and GET /api/v1/corporations
// share: ask the registry first when one is configured (its answers are kept in the
// corporations table), then search the table. A failing registry call is logged and the
// local answer stands.
type Corporations struct {
	Store *store.Store
	// Registry is nil without NTA_APP_ID: then only the corporations the service already
	// knows are searched.
	Registry Registry
	Logger   *slog.Logger
}

// Search returns at most limit corporations matching q (a name, a reading or a number).
func (s *Corporations) Search(ctx context.Context, q string, limit int) ([]store.Corporation, error) {
	if s.Registry != nil {
		found, err := s.Registry.Search(ctx, q)
		if err != nil {
			s.logger().Warn("corporate-number lookup failed", "error", err)
		} else if len(found) > 0 {
			rows := make([]store.Corporation, len(found))
			for i, f := range found {
				rows[i] = corporationOf(f)
			}
			if err := s.Store.SaveCorporations(ctx, rows); err != nil {
				return nil, err
			}
		}
	}
	return s.Store.Corporations(ctx, q, limit)
}

// corporationOf is the registry's record as the corporations table keeps it.
func corporationOf(f nta.Corporation) store.Corporation {
	return store.Corporation{CorporateNumber: f.CorporateNumber, Name: f.Name, NameKana: f.NameKana, Address: f.Address}
}

func (s *Corporations) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// RegistryFunc adapts a function to Registry (tests answer for the NTA with one).
type RegistryFunc func(ctx context.Context, q string) ([]nta.Corporation, error)

// Search calls f.
func (f RegistryFunc) Search(ctx context.Context, q string) ([]nta.Corporation, error) {
	return f(ctx, q)
}

// Numbers calls f for each number in turn.
func (f RegistryFunc) Numbers(ctx context.Context, numbers []string) ([]nta.Corporation, error) {
	var out []nta.Corporation
	for _, n := range numbers {
		found, err := f(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// IssuerName is the registered name of the open corporation numbered number and its
// furigana (the NTA's, "" when unknown), for the invoice reading (invoicefiles.Registry):
// a corporation's registration number is T and its corporate number. ok is false when
// the registry does not know it, or no one answers.
func (s *Corporations) IssuerName(ctx context.Context, number string) (name, kana string, ok bool) {
	c, status, err := s.Verify(ctx, number)
	if err != nil {
		s.logger().Warn("corporate-number lookup for an invoice failed", "error", err)
		return "", "", false
	}
	return c.Name, c.NameKana, status == Confirmed && c.Name != ""
}

// IssuerNames is IssuerName of several numbers at once, the registry asked once (the
// readings of a registration number read a digit wrong, up to eight: one request of the
// NTA where IssuerName made eight): the open corporations it knows among them, by number,
// kept in the corporations table. When the registry is not configured or does not answer,
// the corporations the service knows; a number it says it has none of is not answered.
func (s *Corporations) IssuerNames(ctx context.Context, numbers []string) map[string]store.Corporation {
	out := map[string]store.Corporation{}
	if len(numbers) == 0 {
		return out
	}
	if s.Registry != nil {
		found, err := s.Registry.Numbers(ctx, numbers)
		if err == nil {
			var rows []store.Corporation
			for _, f := range found {
				if f.Name == "" || !slices.Contains(numbers, f.CorporateNumber) {
					continue
				}
				c := corporationOf(f)
				rows, out[c.CorporateNumber] = append(rows, c), c
			}
			if err := s.Store.SaveCorporations(ctx, rows); err != nil {
				s.logger().Warn("corporations from the registry not kept", "error", err)
			}
			return out
		}
		s.logger().Warn("corporate-number lookup for an invoice failed", "error", err)
	}
	for _, n := range numbers {
		if c, err := s.Store.Corporation(ctx, n); err == nil && c.Name != "" {
			out[n] = c
		}
	}
	return out
}

// What Verify found of a corporate number.
const (
	// Confirmed: the registry (or, when it did not answer, what it answered before) has
	// the number as an open corporation.
	Confirmed = iota
	// Unknown: the registry has no open corporation of that number.
	Unknown
	// Unavailable: the registry did not answer and the number is not among the known
	// corporations.
	Unavailable
)

// Verify looks one corporate number up for a registration: the NTA when configured
// (its answer is kept in the corporations table), otherwise, or when the NTA fails,
// the corporations the service knows. An NTA that answers "no such corporation" is
// believed over the table, which may hold a corporation closed since.
func (s *Corporations) Verify(ctx context.Context, number string) (store.Corporation, int, error) {
	if s.Registry != nil {
		found, err := s.Registry.Search(ctx, number)
		if err != nil {
			s.logger().Warn("corporate-number lookup for a registration failed", "error", err)
		} else {
			for _, f := range found {
				if f.CorporateNumber != number {
					continue
				}
				c := corporationOf(f)
				if err := s.Store.SaveCorporations(ctx, []store.Corporation{c}); err != nil {
					return store.Corporation{}, 0, err
				}
				return c, Confirmed, nil
			}
			return store.Corporation{}, Unknown, nil
		}
	}
	c, err := s.Store.Corporation(ctx, number)
	switch {
	case err == nil:
		return c, Confirmed, nil
	case !errors.Is(err, store.ErrNotFound):
		return store.Corporation{}, 0, err
	case s.Registry != nil:
		return store.Corporation{}, Unavailable, nil
	}
	return store.Corporation{}, Unknown, nil
}
