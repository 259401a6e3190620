import { boot } from "../lib/mount";

void boot("invoice-upload", () => import("./InvoiceUpload"));
