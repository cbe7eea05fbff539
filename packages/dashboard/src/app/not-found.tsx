import { Empty, Page } from '../kit';

/** Any path of the signed-in app that no feature claims. */
export default function NotFound() {
  return (
    <Page title="Page not found">
      <Empty title="Nothing here">This address is not a page of the dashboard.</Empty>
    </Page>
  );
}
