import { boot } from "../lib/mount";

void boot("registration", () => import("./RegistrationForm"));
