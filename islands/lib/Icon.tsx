// An icon from the sprite built by islands/icons.mjs, as the server renders it:
//   <svg class="icon" aria-hidden="true"><use href="/static/icons.HASH.svg#NAME"></use></svg>
// Size and colour come from CSS (.icon: 1.2em, currentColor; SPEC.md §9).
export interface IconProps {
  /** URL of the sprite, e.g. "/static/icons.abc123.svg" (passed in props by the server). */
  href: string;
  name: string;
  className?: string;
}

export function Icon({ href, name, className }: IconProps) {
  return (
    <svg className={className ? `icon ${className}` : "icon"} aria-hidden="true">
      <use href={`${href}#${name}`} />
    </svg>
  );
}
