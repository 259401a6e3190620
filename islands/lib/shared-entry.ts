// Build-only entry (see islands/build.mjs): everything every island needs, so esbuild puts it
// in shared chunks even while there is only one island. Never loaded by a page.
import * as react from "react";
import * as jsxRuntime from "react/jsx-runtime";
import * as reactDomClient from "react-dom/client";
import * as mount from "./mount";

export { jsxRuntime, mount, react, reactDomClient };
