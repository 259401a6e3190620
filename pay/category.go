package pay

// BusinessCategory is a buyer's line of business, one of the divisions
// (大分類) of the Japan Standard Industrial Classification (日本標準産業分類).
// Code is the division's letter, stored on the buyer and sent by
// GET /api/v1/business_categories; Name is shown to people.
type BusinessCategory struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// BusinessCategories are the 20 divisions A–T of 日本標準産業分類 (令和5年7月
// 改定, in force from 2024-04-01), in the classification's order and with
// its names as published by 総務省, full-width commas included. Divisions
// rather than the 99 major groups keep the sign-up question answerable at a
// glance; S and T are kept so every buyer has an honest answer. Do not modify.
var BusinessCategories = []BusinessCategory{
	{"A", "農業，林業"},
	{"B", "漁業"},
	{"C", "鉱業，採石業，砂利採取業"},
	{"D", "建設業"},
	{"E", "製造業"},
	{"F", "電気・ガス・熱供給・水道業"},
	{"G", "情報通信業"},
	{"H", "運輸業，郵便業"},
	{"I", "卸売業，小売業"},
	{"J", "金融業，保険業"},
	{"K", "不動産業，物品賃貸業"},
	{"L", "学術研究，専門・技術サービス業"},
	{"M", "宿泊業，飲食サービス業"},
	{"N", "生活関連サービス業，娯楽業"},
	{"O", "教育，学習支援業"},
	{"P", "医療，福祉"},
	{"Q", "複合サービス事業"},
	{"R", "サービス業（他に分類されないもの）"},
	{"S", "公務（他に分類されるものを除く）"},
	{"T", "分類不能の産業"},
}

// BusinessCategoryByCode finds a category by its letter. It is strict (one
// upper-case ASCII letter); account.Registration.Normalise prepares form input.
func BusinessCategoryByCode(code string) (BusinessCategory, bool) {
	for _, c := range BusinessCategories {
		if c.Code == code {
			return c, true
		}
	}
	return BusinessCategory{}, false
}
