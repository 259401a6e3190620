package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
)

// BuyerDetails are the business fields of SPEC.md §3, named as the API names them.
type BuyerDetails struct {
	BusinessForm                      pay.BusinessForm `db:"business_form" json:"business_form"`
	CorporateName                     string           `db:"corporate_name" json:"corporate_name"`
	CorporateNameKana                 string           `db:"corporate_name_kana" json:"corporate_name_kana"`
	CorporateNumber                   string           `db:"corporate_number" json:"corporate_number"`
	RepresentativeLastName            string           `db:"representative_last_name" json:"representative_last_name"`
	RepresentativeFirstName           string           `db:"representative_first_name" json:"representative_first_name"`
	RepresentativeLastNameKana        string           `db:"representative_last_name_kana" json:"representative_last_name_kana"`
	RepresentativeFirstNameKana       string           `db:"representative_first_name_kana" json:"representative_first_name_kana"`
	RepresentativeBirthday            *time.Time       `db:"representative_birthday" json:"representative_birthday"`
	RepresentativePostalCode          string           `db:"representative_postal_code" json:"representative_postal_code"`
	RepresentativeAddressState        string           `db:"representative_address_state" json:"representative_address_state"`
	RepresentativeAddressCity         string           `db:"representative_address_city" json:"representative_address_city"`
	RepresentativeAddressStreet       string           `db:"representative_address_street" json:"representative_address_street"`
	RepresentativeAddressBuildingName string           `db:"representative_address_building_name" json:"representative_address_building_name"`
	RepresentativePhoneNumber         string           `db:"representative_phone_number" json:"representative_phone_number"`
	PostalCode                        string           `db:"postal_code" json:"postal_code"`
	AddressState                      string           `db:"address_state" json:"address_state"`
	AddressCity                       string           `db:"address_city" json:"address_city"`
	AddressStreet                     string           `db:"address_street" json:"address_street"`
	AddressBuildingName               string           `db:"address_building_name" json:"address_building_name"`
	BusinessName                      string           `db:"business_name" json:"business_name"`
	BusinessNameKana                  string           `db:"business_name_kana" json:"business_name_kana"`
	BusinessPostalCode                string           `db:"business_postal_code" json:"business_postal_code"`
	BusinessAddressState              string           `db:"business_address_state" json:"business_address_state"`
	BusinessAddressCity               string           `db:"business_address_city" json:"business_address_city"`
	BusinessAddressStreet             string           `db:"business_address_street" json:"business_address_street"`
	BusinessAddressBuildingName       string           `db:"business_address_building_name" json:"business_address_building_name"`
	HomePostalCode                    string           `db:"home_postal_code" json:"home_postal_code"`
	HomeAddressState                  string           `db:"home_address_state" json:"home_address_state"`
	HomeAddressCity                   string           `db:"home_address_city" json:"home_address_city"`
	HomeAddressStreet                 string           `db:"home_address_street" json:"home_address_street"`
	HomeAddressBuildingName           string           `db:"home_address_building_name" json:"home_address_building_name"`
	TransferPersonName                string           `db:"transfer_person_name" json:"transfer_person_name"`
	BusinessCategory                  string           `db:"business_category" json:"business_category"`
}

var buyerDetailColumns, buyerDetailValues = func() (string, string) {
	cols := []string{
		"business_form", "corporate_name", "corporate_name_kana", "corporate_number",
		"representative_last_name", "representative_first_name", "representative_last_name_kana",
		"representative_first_name_kana", "representative_birthday", "representative_postal_code",
		"representative_address_state", "representative_address_city", "representative_address_street",
		"representative_address_building_name", "representative_phone_number", "postal_code",
		"address_state", "address_city", "address_street", "address_building_name", "business_name",
		"business_name_kana", "business_postal_code", "business_address_state", "business_address_city",
		"business_address_street", "business_address_building_name", "home_postal_code",
		"home_address_state", "home_address_city", "home_address_street", "home_address_building_name",
		"transfer_person_name", "business_category",
	}
	vals := make([]string, len(cols))
	for i, c := range cols {
		vals[i] = ":" + c
	}
	return strings.Join(cols, ", "), strings.Join(vals, ", ")
}()

// Buyer is a buyer's business record.
type Buyer struct {
	ID int64 `db:"id"`
	BuyerDetails
	CreatedAt time.Time `db:"created_at"`
}

// Buyer loads the buyer itself; the id is the signed-in user's own buyer id.
func (s *Store) Buyer(ctx context.Context, buyerID int64) (Buyer, error) {
	var b Buyer
	err := s.DB.GetContext(ctx, &b, `SELECT id, created_at, `+buyerDetailColumns+` FROM buyers WHERE id = $1`, buyerID)
	if notFound(err) {
		return Buyer{}, ErrNotFound
	}
	if err != nil {
		return Buyer{}, fmt.Errorf("store: buyer %d: %w", buyerID, err)
	}
	return b, nil
}

// SetTransferPersonName changes the name shown on transfers (PUT users/transfer_person_name).
func (s *Store) SetTransferPersonName(ctx context.Context, buyerID int64, name string) error {
	return s.execOne(ctx, fmt.Sprintf("transfer person of buyer %d", buyerID),
		`UPDATE buyers SET transfer_person_name = $2 WHERE id = $1`, buyerID, name)
}

// execOne runs an UPDATE that must touch exactly one row; none is ErrNotFound, which is
// also what a wrong buyer id gives.
func (s *Store) execOne(ctx context.Context, what, q string, args ...any) error {
	return execOneOn(ctx, s.DB, what, q, args...)
}

// execOneOn is execOne on a transaction (or the database).
func execOneOn(ctx context.Context, db sqlx.ExecerContext, what, q string, args ...any) error {
	res, err := db.ExecContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
