import { boot } from "../lib/mount";

void boot("card-entry", () => import("./CardEntryForm"));
