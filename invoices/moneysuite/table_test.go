package moneysuite

import (
	"fmt"
	"sync"
)

// The suite's figures: one table row per proof, printed as it is known ("| area | what |
// figure | holds |"); task test:money shows these lines.

var (
	tableMu     sync.Mutex
	tableHeader sync.Once
)

// moneyRow prints one row of the table.
func moneyRow(area, what, figure string, holds bool) {
	tableMu.Lock()
	defer tableMu.Unlock()
	tableHeader.Do(func() {
		fmt.Println("| area | what | figure | holds |")
		fmt.Println("|---|---|---|---|")
	})
	yes := "yes"
	if !holds {
		yes = "NO"
	}
	fmt.Printf("| %s | %s | %s | %s |\n", area, what, figure, yes)
}
