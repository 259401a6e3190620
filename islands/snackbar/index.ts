import { boot } from "../lib/mount";

void boot("snackbar", () => import("./Snackbar"));
