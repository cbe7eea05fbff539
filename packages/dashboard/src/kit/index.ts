/**
 * The dashboard's kit: plain, accessible HTML (native inputs, labels, <dialog>, tables) styled by
 * one stylesheet (styles.css). No component library: nothing to download and nothing to
 * re-implement that the browser already does accessibly. Features import from here; the kit
 * imports no feature.
 */
export { Button } from './button';
export { Modal } from './dialog';
export { downloadJson } from './download';
export { Checkbox, SelectField, TextArea, TextField } from './fields';
export { Form, FormDialog, FormFoot } from './form';
export { FormError, fieldError } from './form-error';
export { formatDate, fromLocalInput, humanize, percent, toLocalInput } from './format';
export { ListCard } from './list-card';
export {
  type EmptyState,
  ListPage,
  ListView,
  type Paging,
  SearchFilter,
  useListParams,
  usePagedQuery,
} from './list-page';
export { Crumb, Empty, Loading, Notice, Page, Stats, StatusBadge } from './page';
export { moveItem } from './reorder';
export { type Column, DataTable, type Meta, Pagination } from './table';
export { Tabs } from './tabs';
