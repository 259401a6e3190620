// Vite's ?raw imports (the tests read the Go side's example fallback as text).
declare module "*?raw" {
  const text: string;
  export default text;
}
