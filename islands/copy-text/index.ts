import { boot } from "../lib/mount";

void boot("copy-text", () => import("./CopyText"));
