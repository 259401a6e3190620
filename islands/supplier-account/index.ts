import { boot } from "../lib/mount";

void boot("supplier-account", () => import("./SupplierAccountForm"));
